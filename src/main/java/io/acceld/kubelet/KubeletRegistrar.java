package io.acceld.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.transport.UnixGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classic registration: calls {@code Register} on the kubelet's {@code kubelet.sock}. A kubelet
 * that is starting may have no socket yet, or refuse the call; both are retried with backoff,
 * forever, until the attempt is cancelled (by a restart or shutdown). While the socket is absent it
 * is checked often, which costs only a stat, so that registration follows the kubelet's arrival
 * quickly.
 */
final class KubeletRegistrar {
  private static final Logger log = LoggerFactory.getLogger(KubeletRegistrar.class);

  /** The kubelet dials back (10 s) and asks for options inside Register; allow for both. */
  static final Duration REGISTER_DEADLINE = Duration.ofSeconds(15);

  static final Duration ABSENT_POLL = Duration.ofMillis(200);
  static final Duration FIRST_RETRY = Duration.ofMillis(100);
  static final Duration MAX_RETRY = Duration.ofSeconds(5);

  private final Path kubeletSocket;
  private final UnixGrpc grpc;
  private final ScheduledExecutorService scheduler;

  KubeletRegistrar(Path kubeletSocket, UnixGrpc grpc, ScheduledExecutorService scheduler) {
    this.kubeletSocket = kubeletSocket;
    this.grpc = grpc;
    this.scheduler = scheduler;
  }

  /** One registration, retried until it succeeds or is cancelled. */
  final class Attempt {
    private final RegisterRequest request;
    private final Consumer<Boolean> onRegistered;
    private volatile boolean cancelled;
    private volatile Future<?> next;
    private Duration backoff = FIRST_RETRY;
    private int failures;

    private Attempt(RegisterRequest request, Consumer<Boolean> onRegistered) {
      this.request = request;
      this.onRegistered = onRegistered;
    }

    void cancel() {
      cancelled = true;
      Future<?> f = next;
      if (f != null) {
        f.cancel(false);
      }
    }

    private void schedule(Duration delay) {
      if (!cancelled) {
        next = scheduler.schedule(this::run, delay.toMillis(), TimeUnit.MILLISECONDS);
      }
    }

    private void run() {
      if (cancelled) {
        return;
      }
      if (!Files.exists(kubeletSocket)) {
        if (failures++ == 0) {
          log.info("Waiting for the kubelet: {} does not exist yet", kubeletSocket);
        }
        schedule(ABSENT_POLL);
        return;
      }
      ManagedChannel channel = grpc.channel(kubeletSocket);
      try {
        RegistrationGrpc.newBlockingStub(channel)
            .withDeadlineAfter(REGISTER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
            .register(request);
        if (!cancelled) {
          log.info(
              "Registered {} with the kubelet (endpoint {})",
              request.getResourceName(),
              request.getEndpoint());
          onRegistered.accept(true);
        }
      } catch (StatusRuntimeException e) {
        String message = "Register of " + request.getResourceName() + " failed: " + e.getStatus();
        if (failures++ % 10 == 0) {
          log.warn("{}; retrying in {} ms", message, backoff.toMillis());
        } else {
          log.debug(message);
        }
        schedule(backoff);
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  /** Starts registering; {@code onRegistered} is called with true once it succeeds. */
  Attempt register(RegisterRequest request, Consumer<Boolean> onRegistered) {
    Attempt attempt = new Attempt(request, onRegistered);
    attempt.schedule(Duration.ZERO);
    return attempt;
  }
}
