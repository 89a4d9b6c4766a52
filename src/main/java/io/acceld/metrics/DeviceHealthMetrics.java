package io.acceld.metrics;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NvidiaDetails;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Device health as series, kept in step with the inventory:
 *
 * <ul>
 *   <li>{@code acceld_device_health{resource,device,reason}}: 1 healthy, 0 unhealthy; {@code
 *       reason} is the kind of the headline problem ({@link HealthReasons}), empty when healthy;
 *   <li>{@code acceld_device_health_transitions_total{resource,device,to}}: health flips;
 *   <li>{@code acceld_resource_devices{resource,state}}: healthy and unhealthy devices per
 *       resource;
 *   <li>{@code acceld_mig_devices{gpu,profile}}: MIG devices advertised per GPU (its UUID) and
 *       profile, so a re-partition shows as it happens.
 * </ul>
 *
 * <p>The gauges are redrawn from the whole snapshot on each change (they are few and changes are
 * rare), replacing the previous rows, so a series whose reason or device went away disappears at
 * once instead of lingering with a stale value. Transitions come from the diff.
 */
public final class DeviceHealthMetrics implements MeterBinder, InventoryStore.Listener {
  static final String HEALTH = "acceld.device.health";
  static final String TRANSITIONS = "acceld.device.health.transitions";
  static final String RESOURCE_DEVICES = "acceld.resource.devices";
  static final String MIG_DEVICES = "acceld.mig.devices";

  private final Object lock = new Object();
  private MeterRegistry registry;
  private MultiGauge health;
  private MultiGauge resourceDevices;
  private MultiGauge migDevices;
  private Inventory current = Inventory.EMPTY;

  @Override
  public void bindTo(MeterRegistry registry) {
    synchronized (lock) {
      this.registry = registry;
      health =
          MultiGauge.builder(HEALTH)
              .description(
                  "Whether the device is healthy (1) or not (0); reason is a short category,"
                      + " empty when healthy")
              .register(registry);
      resourceDevices =
          MultiGauge.builder(RESOURCE_DEVICES)
              .description("Devices of the resource by state (healthy or unhealthy)")
              .register(registry);
      migDevices =
          MultiGauge.builder(MIG_DEVICES)
              .description("MIG devices advertised, by parent GPU (UUID) and MIG profile")
              .register(registry);
      render();
    }
  }

  /**
   * Subscribes to {@code store} and shows its current snapshot, which the subscription alone would
   * only reveal at the next change.
   */
  public void follow(InventoryStore store) {
    store.subscribe(this);
    synchronized (lock) {
      // Read inside the lock: a publish racing with us either already rendered a newer snapshot
      // (and store.current() returns at least that one) or renders after us.
      current = store.current();
      render();
    }
  }

  @Override
  public void onChange(Inventory next, InventoryDiff diff) {
    synchronized (lock) {
      if (registry != null) {
        for (InventoryDiff.Change c : diff.changed()) {
          if (c.before().health() != c.after().health()) {
            transitions(c.after()).increment();
          }
        }
        for (Device gone : diff.removed()) {
          registry.find(TRANSITIONS).tag("device", gone.id()).meters().forEach(registry::remove);
        }
      }
      current = next;
      render();
    }
  }

  private Counter transitions(Device to) {
    return Counter.builder(TRANSITIONS)
        .description("Times the device changed health, by the state it changed to")
        .tags(
            "resource",
            to.resource(),
            "device",
            to.id(),
            "to",
            to.health().name().toLowerCase(Locale.ROOT))
        .register(registry);
  }

  private void render() {
    if (registry == null) {
      return;
    }
    List<MultiGauge.Row<?>> healthRows = new ArrayList<>();
    Map<String, int[]> perResource = new TreeMap<>();
    for (Device d : current.devices()) {
      healthRows.add(
          MultiGauge.Row.of(
              Tags.of("resource", d.resource(), "device", d.id(), "reason", HealthReasons.label(d)),
              d.isHealthy() ? 1 : 0));
      perResource.computeIfAbsent(d.resource(), r -> new int[2])[d.isHealthy() ? 0 : 1]++;
    }
    List<MultiGauge.Row<?>> resourceRows = new ArrayList<>();
    perResource.forEach(
        (resource, counts) -> {
          resourceRows.add(
              MultiGauge.Row.of(Tags.of("resource", resource, "state", "healthy"), counts[0]));
          resourceRows.add(
              MultiGauge.Row.of(Tags.of("resource", resource, "state", "unhealthy"), counts[1]));
        });
    Map<List<String>, Integer> perProfile = new TreeMap<>(Comparator.comparing(Object::toString));
    for (Device d : current.devices()) {
      d.nvidia()
          .flatMap(NvidiaDetails::mig)
          .ifPresent(m -> perProfile.merge(List.of(m.parentUuid(), m.profile()), 1, Integer::sum));
    }
    List<MultiGauge.Row<?>> migRows = new ArrayList<>();
    perProfile.forEach(
        (key, count) ->
            migRows.add(
                MultiGauge.Row.of(Tags.of("gpu", key.get(0), "profile", key.get(1)), count)));
    // overwrite = true: rows not in the new list are removed from the registry
    health.register(healthRows, true);
    resourceDevices.register(resourceRows, true);
    migDevices.register(migRows, true);
  }
}
