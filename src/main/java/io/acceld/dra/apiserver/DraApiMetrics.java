package io.acceld.dra.apiserver;

import io.acceld.kube.ApiException;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The API-server side of DRA as series; bound only when DRA is on:
 *
 * <ul>
 *   <li>{@code acceld_dra_slice_writes_total{verb}}: {@code create}, {@code update}, {@code delete}
 *       requests that succeeded;
 *   <li>{@code acceld_dra_api_errors_total{kind}}: failed requests by {@link ApiException.Kind};
 *   <li>{@code acceld_dra_watch_restarts_total}: slice watches opened again after the first.
 * </ul>
 */
public final class DraApiMetrics implements MeterBinder {
  /** A write to the API server. */
  public enum Verb {
    CREATE,
    UPDATE,
    DELETE
  }

  private final Map<Verb, LongAdder> writes = new EnumMap<>(Verb.class);
  private final Map<ApiException.Kind, LongAdder> errors = new EnumMap<>(ApiException.Kind.class);
  private final LongAdder watchRestarts = new LongAdder();

  public DraApiMetrics() {
    for (Verb v : Verb.values()) {
      writes.put(v, new LongAdder());
    }
    for (ApiException.Kind k : ApiException.Kind.values()) {
      errors.put(k, new LongAdder());
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    writes.forEach(
        (verb, count) ->
            FunctionCounter.builder("acceld.dra.slice.writes", count, LongAdder::doubleValue)
                .description("ResourceSlice writes to the API server that succeeded, by verb")
                .tag("verb", verb.name().toLowerCase(Locale.ROOT))
                .register(registry));
    errors.forEach(
        (kind, count) ->
            FunctionCounter.builder("acceld.dra.api.errors", count, LongAdder::doubleValue)
                .description("DRA requests to the API server that failed, by kind")
                .tag("kind", kind.tag())
                .register(registry));
    FunctionCounter.builder("acceld.dra.watch.restarts", watchRestarts, LongAdder::doubleValue)
        .description("ResourceSlice watches opened again after the first")
        .register(registry);
  }

  void wrote(Verb verb) {
    writes.get(verb).increment();
  }

  void failed(ApiException.Kind kind) {
    errors.get(kind).increment();
  }

  void watchRestarted() {
    watchRestarts.increment();
  }

  /** Writes of {@code verb} so far. */
  public long writes(Verb verb) {
    return writes.get(verb).sum();
  }

  /** Errors of {@code kind} so far. */
  public long errors(ApiException.Kind kind) {
    return errors.get(kind).sum();
  }

  public long watchRestarts() {
    return watchRestarts.sum();
  }
}
