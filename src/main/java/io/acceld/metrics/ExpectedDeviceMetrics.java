package io.acceld.metrics;

import io.acceld.config.DeviceExpectation;
import io.acceld.inventory.Inventory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What {@code --expect-devices} asked for beside what the node has, one pair per expected resource:
 * {@code acceld_expected_devices{resource}} and {@code acceld_found_devices{resource}}, so that
 * {@code acceld_found_devices < acceld_expected_devices} alerts on a node whose driver lost its
 * GPUs. Found is read from the inventory at scrape time; the resources are fixed at start, so an
 * expected resource with no devices still shows, at 0.
 */
final class ExpectedDeviceMetrics implements MeterBinder {
  static final String EXPECTED = "acceld.expected.devices";
  static final String FOUND = "acceld.found.devices";

  private final List<DeviceExpectation> expectations;
  private final Supplier<Inventory> inventory;

  ExpectedDeviceMetrics(List<DeviceExpectation> expectations, Supplier<Inventory> inventory) {
    this.expectations = List.copyOf(expectations);
    this.inventory = Objects.requireNonNull(inventory, "inventory");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (DeviceExpectation e : expectations) {
      Gauge.builder(EXPECTED, e::count)
          .description(
              "Devices of the resource --expect-devices asks for (the minimum, for a >= expectation)")
          .tag("resource", e.resource())
          .register(registry);
      Gauge.builder(FOUND, () -> inventory.get().devicesOf(e.resource()).size())
          .description("Devices of an expected resource the agent found, healthy or not")
          .tag("resource", e.resource())
          .register(registry);
    }
  }
}
