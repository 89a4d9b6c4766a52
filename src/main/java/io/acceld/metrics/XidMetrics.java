package io.acceld.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * XID errors (NVIDIA driver error codes reported through NVML events): a counter {@code
 * acceld_device_xid_errors_total{resource,device,xid}}, and the last XID per device, which the
 * dcgm-exporter compatible {@code DCGM_FI_DEV_XID_ERRORS} gauge reports.
 *
 * <p>Counts recorded before {@link #bindTo} are kept and appear once bound. XID values are a small
 * fixed set, so the {@code xid} label stays bounded.
 */
public final class XidMetrics implements MeterBinder {
  static final String XID_ERRORS = "acceld.device.xid.errors";

  private record Key(String resource, String device, int xid) {}

  private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();
  private final Map<String, Integer> lastXid = new ConcurrentHashMap<>();
  private MeterRegistry registry;

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    this.registry = registry;
    counts.forEach(this::register);
  }

  /** One XID event of {@code deviceId} (the inventory ID). */
  public void record(String resource, String deviceId, int xid) {
    lastXid.put(deviceId, xid);
    LongAdder count = counts.get(new Key(resource, deviceId, xid));
    if (count == null) {
      count = newCount(new Key(resource, deviceId, xid));
    }
    count.increment();
  }

  private synchronized LongAdder newCount(Key key) {
    return counts.computeIfAbsent(
        key,
        k -> {
          LongAdder adder = new LongAdder();
          if (registry != null) {
            register(k, adder);
          }
          return adder;
        });
  }

  private void register(Key key, LongAdder count) {
    // the map keeps the adder reachable; the counter only holds it weakly
    FunctionCounter.builder(XID_ERRORS, count, LongAdder::doubleValue)
        .description("XID errors reported by the driver, by XID code")
        .tags(
            "resource", key.resource(), "device", key.device(), "xid", Integer.toString(key.xid()))
        .register(registry);
  }

  /** The most recent XID of {@code deviceId}, empty if it never had one. */
  public OptionalInt lastXid(String deviceId) {
    Integer xid = lastXid.get(deviceId);
    return xid == null ? OptionalInt.empty() : OptionalInt.of(xid);
  }
}
