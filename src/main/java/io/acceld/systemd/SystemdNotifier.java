package io.acceld.systemd;

import io.acceld.util.PeriodicTask;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells systemd ({@code Type=notify}) how the agent is doing: {@code READY=1} once every resource
 * is registered with the kubelet or serving, a {@code STATUS=} line whenever that changes, and
 * {@code WATCHDOG=1} at half of {@code WATCHDOG_USEC} when the unit sets {@code WatchdogSec}. It
 * exists only under systemd: without {@code NOTIFY_SOCKET} there is nobody to tell.
 *
 * <p>Its own thread ({@code acceld-sd-notify}) checks readiness every {@link #CHECK_INTERVAL} (or
 * at the watchdog pace if that is faster). A failed send is logged once per run of failures and
 * retried on the next turn; it never stops the agent.
 */
public final class SystemdNotifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SystemdNotifier.class);

  /** How often readiness is looked at; READY=1 follows registration within this. */
  static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

  private final NotifySocket socket;
  private final BooleanSupplier ready;
  private final Optional<Duration> watchdogInterval;
  private final PeriodicTask loop;

  // Touched only on the loop thread.
  private boolean readySent;
  private String lastStatus;
  private long lastWatchdogNanos;
  private boolean failing;

  SystemdNotifier(NotifySocket socket, BooleanSupplier ready, Optional<Duration> watchdogUsec) {
    this.socket = Objects.requireNonNull(socket, "socket");
    this.ready = Objects.requireNonNull(ready, "ready");
    this.watchdogInterval = watchdogUsec.map(w -> w.dividedBy(2));
    Duration pace =
        watchdogInterval.filter(w -> w.compareTo(CHECK_INTERVAL) < 0).orElse(CHECK_INTERVAL);
    this.loop = PeriodicTask.every("acceld-sd-notify", "systemd notification", pace, this::turn);
  }

  /**
   * A notifier if {@code NOTIFY_SOCKET} is set in {@code environment}, else empty.
   *
   * @throws IllegalArgumentException naming the variable if it or {@code WATCHDOG_USEC} is
   *     malformed
   */
  public static Optional<SystemdNotifier> fromEnvironment(
      Map<String, String> environment, BooleanSupplier ready) {
    String address = environment.get("NOTIFY_SOCKET");
    if (address == null || address.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new SystemdNotifier(NotifySocket.of(address), ready, watchdog(environment)));
  }

  /** {@code WATCHDOG_USEC}, if set and meant for this process ({@code WATCHDOG_PID}). */
  static Optional<Duration> watchdog(Map<String, String> environment) {
    String usec = environment.get("WATCHDOG_USEC");
    if (usec == null || usec.isEmpty()) {
      return Optional.empty();
    }
    String pid = environment.get("WATCHDOG_PID");
    if (pid != null
        && !pid.isEmpty()
        && !pid.equals(Long.toString(ProcessHandle.current().pid()))) {
      return Optional.empty(); // set for another process (a wrapper script that exec'd us not)
    }
    long micros;
    try {
      micros = Long.parseLong(usec);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "WATCHDOG_USEC must be a whole number of microseconds, not '" + usec + "'");
    }
    if (micros <= 0) {
      throw new IllegalArgumentException("WATCHDOG_USEC must be positive, not " + micros);
    }
    return Optional.of(Duration.ofNanos(Math.multiplyExact(micros, 1000L)));
  }

  /** The first turn runs at once: a node that is already ready says so immediately. */
  public void start() {
    loop.start();
  }

  public boolean alive() {
    return loop.alive();
  }

  private void turn() {
    boolean nowReady = ready.getAsBoolean();
    StringBuilder message = new StringBuilder();
    String status =
        nowReady
            ? "Serving: every resource is registered with the kubelet or serving"
            : "Starting: waiting for the kubelet to register every resource";
    if (!status.equals(lastStatus)) {
      message.append("STATUS=").append(status).append('\n');
    }
    if (nowReady && !readySent) {
      message.append("READY=1\n");
    }
    long now = System.nanoTime();
    boolean watchdogDue =
        watchdogInterval.isPresent()
            && (lastWatchdogNanos == 0
                || now - lastWatchdogNanos >= watchdogInterval.get().toNanos());
    if (watchdogDue) {
      message.append("WATCHDOG=1\n");
    }
    if (message.length() == 0) {
      return;
    }
    try {
      socket.send(message.toString());
      lastStatus = status;
      readySent |= nowReady;
      if (watchdogDue) {
        lastWatchdogNanos = now;
      }
      if (failing) {
        failing = false;
        log.info("systemd notifications reach {} again", socket);
      }
    } catch (IOException e) {
      if (!failing) {
        failing = true;
        log.warn("Cannot notify systemd ({}); retrying: {}", socket, e.getMessage());
      }
    }
  }

  /** Says {@code STOPPING=1}, then ends the loop. */
  @Override
  public void close() {
    loop.close();
    try {
      socket.send("STOPPING=1\nSTATUS=Stopping\n");
    } catch (IOException e) {
      log.debug("STOPPING=1 not sent: {}", e.getMessage());
    }
  }
}
