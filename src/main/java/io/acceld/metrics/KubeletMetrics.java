package io.acceld.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The kubelet-facing servers' events as series, per advertised resource:
 *
 * <ul>
 *   <li>{@code acceld_kubelet_registered}: 1 while registered with the kubelet, else 0;
 *   <li>{@code acceld_kubelet_registrations_total}: successful registrations (more than one means
 *       the kubelet restarted or the plugin re-registered);
 *   <li>{@code acceld_allocations_total}: devices handed out by Allocate;
 *   <li>{@code acceld_allocate_requests_total}: successful Allocate calls;
 *   <li>{@code acceld_listandwatch_streams}: open ListAndWatch streams (normally 1).
 * </ul>
 *
 * <p>Events update plain counters and are never blocked by the registry; a resource's series are
 * created on its first event (or at {@link #bindTo} for events that came earlier).
 */
public final class KubeletMetrics implements MeterBinder {
  static final String REGISTERED = "acceld.kubelet.registered";
  static final String REGISTRATIONS = "acceld.kubelet.registrations";
  static final String ALLOCATIONS = "acceld.allocations";
  static final String ALLOCATE_REQUESTS = "acceld.allocate.requests";
  static final String STREAMS = "acceld.listandwatch.streams";

  private static final class ResourceState {
    final AtomicInteger registered = new AtomicInteger();
    final AtomicInteger streams = new AtomicInteger();
    final LongAdder registrations = new LongAdder();
    final LongAdder allocatedDevices = new LongAdder();
    final LongAdder allocateRequests = new LongAdder();
  }

  private final Map<String, ResourceState> resources = new ConcurrentHashMap<>();
  private MeterRegistry registry;

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    this.registry = registry;
    resources.forEach(this::register);
  }

  public void allocated(String resource, int devices) {
    ResourceState s = state(resource);
    s.allocateRequests.increment();
    s.allocatedDevices.add(devices);
  }

  public void streams(String resource, int open) {
    state(resource).streams.set(open);
  }

  public void registered(String resource, boolean registered) {
    ResourceState s = state(resource);
    s.registered.set(registered ? 1 : 0);
    if (registered) {
      s.registrations.increment();
    }
  }

  private ResourceState state(String resource) {
    ResourceState s = resources.get(resource);
    return s != null ? s : newState(resource);
  }

  private synchronized ResourceState newState(String resource) {
    return resources.computeIfAbsent(
        resource,
        r -> {
          ResourceState s = new ResourceState();
          if (registry != null) {
            register(r, s);
          }
          return s;
        });
  }

  private void register(String resource, ResourceState s) {
    // the map keeps each state reachable; the meters only hold it weakly
    Gauge.builder(REGISTERED, s.registered, AtomicInteger::get)
        .description("Whether the resource is registered with the kubelet (1) or not (0)")
        .tag("resource", resource)
        .register(registry);
    Gauge.builder(STREAMS, s.streams, AtomicInteger::get)
        .description("Open ListAndWatch streams from the kubelet (normally 1 while registered)")
        .tag("resource", resource)
        .register(registry);
    FunctionCounter.builder(REGISTRATIONS, s.registrations, LongAdder::doubleValue)
        .description("Successful registrations with the kubelet")
        .tag("resource", resource)
        .register(registry);
    FunctionCounter.builder(ALLOCATIONS, s.allocatedDevices, LongAdder::doubleValue)
        .description("Devices handed out by Allocate")
        .tag("resource", resource)
        .register(registry);
    FunctionCounter.builder(ALLOCATE_REQUESTS, s.allocateRequests, LongAdder::doubleValue)
        .description("Allocate calls that succeeded")
        .tag("resource", resource)
        .register(registry);
  }
}
