package io.acceld.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts and times every call our gRPC servers answer (the kubelet's device-plugin calls):
 *
 * <ul>
 *   <li>{@code acceld_grpc_server_calls_total{method,code}}: calls by final status;
 *   <li>{@code acceld_grpc_server_call_duration_seconds{method}}: a histogram from call start to
 *       close (for ListAndWatch, the stream's lifetime).
 * </ul>
 *
 * <p>The histogram uses the fixed {@link #BUCKETS} rather than Micrometer's percentile histogram,
 * which would publish 77 buckets per method between 100 µs and 10 s; 16 buckets answer "how slow is
 * Allocate" just as well at a fifth of the series.
 *
 * <p>Before {@link #bindTo} the interceptor passes calls through untouched.
 */
public final class GrpcServerMetrics implements ServerInterceptor, MeterBinder {
  static final String CALLS = "acceld.grpc.server.calls";
  static final String DURATION = "acceld.grpc.server.call.duration";

  /** 100 µs to 10 s in 1-2.5-5 steps: Allocate is sub-millisecond, a slow disk write is not. */
  static final Duration[] BUCKETS = {
    Duration.ofNanos(100_000),
    Duration.ofNanos(250_000),
    Duration.ofNanos(500_000),
    Duration.ofMillis(1),
    Duration.ofNanos(2_500_000),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2_500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
  };

  private record CallKey(String method, Status.Code code) {}

  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<CallKey, Counter> counters = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    MeterRegistry bound = registry;
    if (bound == null) {
      return next.startCall(call, headers);
    }
    String method = call.getMethodDescriptor().getFullMethodName();
    long start = System.nanoTime();
    AtomicBoolean recorded = new AtomicBoolean();
    ServerCall<ReqT, RespT> timed =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            record(bound, method, status.getCode(), start, recorded);
            super.close(status, trailers);
          }
        };
    return new SimpleForwardingServerCallListener<>(next.startCall(timed, headers)) {
      @Override
      public void onCancel() {
        // the client went away (or the server shut down) before we closed the call
        record(bound, method, Status.Code.CANCELLED, start, recorded);
        super.onCancel();
      }
    };
  }

  private void record(
      MeterRegistry bound, String method, Status.Code code, long start, AtomicBoolean recorded) {
    if (!recorded.compareAndSet(false, true)) {
      return;
    }
    long elapsed = System.nanoTime() - start;
    timers
        .computeIfAbsent(
            method,
            m ->
                Timer.builder(DURATION)
                    .description("Time from the start of a gRPC call to its close")
                    .tag("method", m)
                    .serviceLevelObjectives(BUCKETS)
                    .register(bound))
        .record(elapsed, TimeUnit.NANOSECONDS);
    counters
        .computeIfAbsent(
            new CallKey(method, code),
            k ->
                Counter.builder(CALLS)
                    .description("gRPC calls answered, by method and final status code")
                    .tags("method", k.method(), "code", k.code().name())
                    .register(bound))
        .increment();
  }
}
