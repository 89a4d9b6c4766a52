package io.acceld.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.transport.SocketIdentity;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.Backoff;
import io.acceld.util.GuardedBy;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classic registration: calls {@code Register} on the kubelet's {@code kubelet.sock} for one
 * generation of one resource's server, until it holds or the generation ends.
 *
 * <p>The kubelet dials our socket back and calls {@code GetDevicePluginOptions} <em>inside</em>
 * Register, and opens ListAndWatch right after it. A Register sent while our socket is not serving
 * therefore hangs for the kubelet's 10 s dial timeout, and a Register the kubelet accepted but
 * never followed up leaves the resource at zero. So an attempt:
 *
 * <ul>
 *   <li>sends Register only after {@link Target#readyToRegister()} confirmed, under the owner's
 *       lock, that this generation's server is serving on the socket it bound;
 *   <li>abandons a Register the kubelet has not dialled back within {@link #DIAL_BACK} (no
 *       GetDevicePluginOptions or ListAndWatch reached us) and sends another;
 *   <li>after a successful Register, sends another if no ListAndWatch arrived within {@link
 *       #DIAL_BACK};
 *   <li>retries a failed Register with capped backoff, and waits for a missing {@code kubelet.sock}
 *       with a cheap stat (the directory watch also {@link Attempt#poke pokes} it).
 * </ul>
 *
 * <p>Every attempt's state is guarded by its owner's lock (one per resource, {@link
 * ResourcePlugin}), so a stop of one server generation and a Register for another cannot
 * interleave. Register itself is asynchronous: no thread, and no lock, waits on the kubelet.
 */
final class KubeletRegistrar {
  private static final Logger log = LoggerFactory.getLogger(KubeletRegistrar.class);

  /** The kubelet dials back (10 s) and asks for options inside Register; allow for both. */
  static final Duration REGISTER_DEADLINE = Duration.ofSeconds(15);

  /** How long the kubelet may take to reach us after Register before we try again. */
  static final Duration DIAL_BACK = Duration.ofSeconds(2);

  static final Duration ABSENT_POLL = Duration.ofMillis(100);
  static final Duration FIRST_RETRY = Duration.ofMillis(100);
  static final Duration MAX_RETRY = Duration.ofSeconds(2);

  private final Path kubeletSocket;
  private final UnixGrpc grpc;
  private final ScheduledExecutorService scheduler;

  KubeletRegistrar(Path kubeletSocket, UnixGrpc grpc, ScheduledExecutorService scheduler) {
    this.kubeletSocket = kubeletSocket;
    this.grpc = grpc;
    this.scheduler = scheduler;
  }

  /** The server generation an attempt registers. Every method is called with the lock held. */
  interface Target {
    RegisterRequest request();

    /** Whether the server is serving on the socket file it bound, so the kubelet can dial it. */
    boolean readyToRegister();

    /** Register succeeded ({@code true}), or a success turned out hollow ({@code false}). */
    void onRegistered(boolean registered);

    /** The server is not serving its socket any more: serve a new generation. */
    void onSocketLost();

    /**
     * A Register failed, or could not be sent since there is no kubelet socket; it is tried again.
     */
    void onRegisterFailed();
  }

  /**
   * Starts registering {@code target}; its state is guarded by {@code lock}, which the caller holds
   * now and whenever it calls the attempt.
   */
  Attempt start(Object lock, Target target, KubeletCalls calls) {
    Attempt attempt = new Attempt(lock, target, calls);
    attempt.schedule(Duration.ZERO);
    return attempt;
  }

  /** One generation's registration, retried until it holds or is cancelled. */
  final class Attempt {
    private final Object lock;
    private final Target target;
    private final KubeletCalls calls;

    @GuardedBy("lock")
    private boolean cancelled;

    /** The next run, dial-back check or stream check, if one is scheduled. */
    @GuardedBy("lock")
    private Future<?> timer;

    /** The channel of the Register in flight, or null. */
    @GuardedBy("lock")
    private ManagedChannel inFlight;

    /** Numbers each Register sent, so that the answer of an abandoned one is ignored. */
    @GuardedBy("lock")
    private long sent;

    /** The kubelet.sock a Register in flight or accepted went to; null if none. */
    @GuardedBy("lock")
    private SocketIdentity engagedWith;

    @GuardedBy("lock")
    private boolean waitingForSocket;

    @GuardedBy("lock")
    private final Backoff backoff = new Backoff(FIRST_RETRY, MAX_RETRY);

    @GuardedBy("lock")
    private int failures;

    /** Register calls abandoned for want of a dial-back, for throttling their log line. */
    @GuardedBy("lock")
    private int unanswered;

    private Attempt(Object lock, Target target, KubeletCalls calls) {
      this.lock = lock;
      this.target = target;
      this.calls = calls;
    }

    /** Ends the attempt: nothing it sent or scheduled has any effect from now on. */
    @GuardedBy("lock")
    void cancel() {
      cancelled = true;
      cancelTimer();
      abandonInFlight();
      engagedWith = null;
    }

    /**
     * Whether a Register of this attempt is in flight or accepted at a {@code kubelet.sock} other
     * than {@code current}: then a kubelet that has gone may hold (or be about to hold) a
     * registration of this server, and only a restart of the server ends it cleanly. An attempt
     * that already talks to {@code current}, or has not reached any kubelet, needs no restart.
     */
    @GuardedBy("lock")
    boolean engagedWithOtherThan(SocketIdentity current) {
      return engagedWith != null && !engagedWith.equals(current);
    }

    /** {@code kubelet.sock} appeared: if this attempt waits for it, or for a retry, try now. */
    @GuardedBy("lock")
    void poke() {
      if (cancelled || inFlight != null || engagedWith != null) {
        return;
      }
      backoff.reset();
      schedule(Duration.ZERO);
    }

    @GuardedBy("lock")
    private void schedule(Duration delay) {
      cancelTimer();
      if (!cancelled) {
        timer = later(delay, this::run);
      }
    }

    private Future<?> later(Duration delay, Runnable task) {
      try {
        return scheduler.schedule(
            () -> {
              synchronized (lock) {
                if (!cancelled) {
                  task.run();
                }
              }
            },
            delay.toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        return null; // shutting down
      }
    }

    @GuardedBy("lock")
    private void cancelTimer() {
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }

    @GuardedBy("lock")
    private void abandonInFlight() {
      if (inFlight != null) {
        sent++; // its answer, when it comes, no longer matches
        inFlight.shutdownNow();
        inFlight = null;
      }
    }

    @GuardedBy("lock")
    private void run() {
      timer = null;
      if (!Files.exists(kubeletSocket)) {
        if (!waitingForSocket) {
          log.info("Waiting for the kubelet: {} does not exist yet", kubeletSocket);
          waitingForSocket = true;
          target.onRegisterFailed();
        }
        schedule(ABSENT_POLL);
        return;
      }
      waitingForSocket = false;
      if (!target.readyToRegister()) {
        log.info(
            "Not registering {}: its socket is not the one it serves; serving it again",
            target.request().getResourceName());
        target.onSocketLost();
        return;
      }
      send();
    }

    @GuardedBy("lock")
    private void send() {
      RegisterRequest request = target.request();
      KubeletCalls.Mark mark = calls.mark();
      long id = ++sent;
      engagedWith = SocketIdentity.of(kubeletSocket);
      ManagedChannel channel = grpc.channel(kubeletSocket);
      inFlight = channel;
      RegistrationGrpc.newStub(channel)
          .withDeadlineAfter(REGISTER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
          .register(
              request,
              new StreamObserver<>() {
                @Override
                public void onNext(Empty value) {}

                @Override
                public void onError(Throwable t) {
                  synchronized (lock) {
                    if (current(id)) {
                      failed(Status.fromThrowable(t).toString());
                    }
                  }
                }

                @Override
                public void onCompleted() {
                  synchronized (lock) {
                    if (current(id)) {
                      succeeded(id, mark);
                    }
                  }
                }
              });
      timer = later(DIAL_BACK, () -> checkDialBack(id, mark));
    }

    @GuardedBy("lock")
    private boolean current(long id) {
      return !cancelled && id == sent && inFlight != null;
    }

    @GuardedBy("lock")
    private void succeeded(long id, KubeletCalls.Mark mark) {
      inFlight.shutdownNow();
      inFlight = null;
      cancelTimer();
      failures = 0;
      backoff.reset();
      RegisterRequest request = target.request();
      log.info(
          "Registered {} with the kubelet (endpoint {})",
          request.getResourceName(),
          request.getEndpoint());
      target.onRegistered(true);
      timer = later(DIAL_BACK, () -> checkStream(id, mark));
    }

    @GuardedBy("lock")
    private void failed(String status) {
      inFlight.shutdownNow();
      inFlight = null;
      engagedWith = null;
      String message = "Register of " + target.request().getResourceName() + " failed: " + status;
      target.onRegisterFailed();
      Duration pause = backoff.next();
      if (failures++ % 10 == 0) {
        log.warn("{}; retrying in {} ms", message, pause.toMillis());
      } else {
        log.debug(message);
      }
      schedule(pause);
    }

    /** Register still in flight after {@link #DIAL_BACK}: did the kubelet reach us at all? */
    @GuardedBy("lock")
    private void checkDialBack(long id, KubeletCalls.Mark mark) {
      timer = null;
      if (!current(id) || calls.dialledBackSince(mark)) {
        return; // answered already, or the kubelet got through and is still working
      }
      String message =
          "The kubelet has not dialled "
              + target.request().getResourceName()
              + " back within "
              + DIAL_BACK.toMillis()
              + " ms of Register; registering again";
      if (unanswered++ % 10 == 0) {
        log.warn(message);
      } else {
        log.debug(message);
      }
      abandonInFlight();
      engagedWith = null;
      run();
    }

    /** Register succeeded {@link #DIAL_BACK} ago: did the kubelet open ListAndWatch? */
    @GuardedBy("lock")
    private void checkStream(long id, KubeletCalls.Mark mark) {
      timer = null;
      if (id != sent || calls.streamOpenedSince(mark)) {
        return;
      }
      log.warn(
          "The kubelet accepted {} but opened no ListAndWatch within {} ms; registering again",
          target.request().getResourceName(),
          DIAL_BACK.toMillis());
      target.onRegistered(false);
      engagedWith = null;
      run();
    }
  }
}
