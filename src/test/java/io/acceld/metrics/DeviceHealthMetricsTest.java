package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.health.HealthMark;
import io.acceld.health.HealthSource;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.HealthProblem.Kind;
import io.acceld.inventory.InventoryStore;
import io.acceld.testing.TestDevices;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What an operator's health dashboard and alerts see as devices fail, change and recover. */
class DeviceHealthMetricsTest {
  private static final String GPU = "nvidia.com/gpu";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final InventoryStore store = new InventoryStore();
  private final DeviceHealthMetrics metrics = new DeviceHealthMetrics();
  private final Device gpu0 = TestDevices.nvidia(0, 0);
  private final Device gpu1 = TestDevices.nvidia(1, 0);
  private final Device amd = TestDevices.amd(0, 1);

  @BeforeEach
  void bind() {
    metrics.bindTo(registry);
    metrics.follow(store);
    store.publish(TestDevices.inventory(List.of(gpu0, gpu1, amd)));
  }

  @Test
  void healthyDevicesReadOneWithAnEmptyReason() {
    Exposition scrape = scrape();

    assertThat(scrape.series("acceld_device_health"))
        .hasSize(3)
        .allSatisfy(
            s -> {
              assertThat(s.value()).isEqualTo(1.0);
              assertThat(s.labels()).containsEntry("reason", "");
            });
    assertThat(scrape.value("acceld_device_health", "device", gpu0.id(), "resource", GPU))
        .hasValue(1.0);
    assertThat(scrape.value("acceld_resource_devices", "resource", GPU, "state", "healthy"))
        .hasValue(2.0);
    assertThat(scrape.value("acceld_resource_devices", "resource", GPU, "state", "unhealthy"))
        .hasValue(0.0);
    assertThat(
            scrape.value("acceld_resource_devices", "resource", "amd.com/gpu", "state", "healthy"))
        .hasValue(1.0);
    assertThat(scrape.text()).contains("# HELP acceld_device_health Whether the device is healthy");
  }

  @Test
  void aFailingDeviceFlipsToZeroWithItsReasonAndCountsATransition() {
    publish(lost(gpu1), amd, gpu0);

    Exposition scrape = scrape();
    assertThat(scrape.series("acceld_device_health"))
        .filteredOn(s -> s.labels().get("device").equals(gpu1.id()))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.value()).isZero();
              assertThat(s.labels()).containsEntry("reason", "gpu_lost");
            });
    assertThat(
            scrape.value(
                "acceld_device_health_transitions_total", "device", gpu1.id(), "to", "unhealthy"))
        .hasValue(1.0);
    assertThat(scrape.value("acceld_resource_devices", "resource", GPU, "state", "healthy"))
        .hasValue(1.0);
    assertThat(scrape.value("acceld_resource_devices", "resource", GPU, "state", "unhealthy"))
        .hasValue(1.0);
  }

  @Test
  void aReasonChangeReplacesTheSeriesWithoutCountingATransition() {
    publish(gpu0, amd, unhealthy(gpu1, HealthProblem.deviceNodeMissing(Path.of("/dev/nvidia1"))));
    publish(gpu0, amd, lost(gpu1));

    Exposition scrape = scrape();
    assertThat(scrape.series("acceld_device_health"))
        .filteredOn(s -> s.labels().get("device").equals(gpu1.id()))
        .extracting(s -> s.labels().get("reason"))
        .containsExactly("gpu_lost");
    assertThat(scrape.series("acceld_device_health_transitions_total"))
        .singleElement()
        .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
  }

  @Test
  void recoveryIsATransitionBackToHealthyAndLeavesNoUnhealthySeries() {
    publish(gpu0, amd, lost(gpu1));
    publish(gpu0, amd, gpu1);

    Exposition scrape = scrape();
    assertThat(scrape.series("acceld_device_health"))
        .filteredOn(s -> s.labels().get("device").equals(gpu1.id()))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.value()).isEqualTo(1.0);
              assertThat(s.labels()).containsEntry("reason", "");
            });
    assertThat(
            scrape.value(
                "acceld_device_health_transitions_total", "device", gpu1.id(), "to", "healthy"))
        .hasValue(1.0);
    assertThat(
            scrape.value(
                "acceld_device_health_transitions_total", "device", gpu1.id(), "to", "unhealthy"))
        .hasValue(1.0);
  }

  @Test
  void aRemovedDeviceLeavesNoSeriesBehind() {
    publish(gpu0, amd, lost(gpu1));
    publish(gpu0);

    Exposition scrape = scrape();
    assertThat(scrape.series("acceld_device_health"))
        .extracting(s -> s.labels().get("device"))
        .containsExactly(gpu0.id());
    assertThat(scrape.series("acceld_device_health_transitions_total")).isEmpty();
    assertThat(scrape.series("acceld_resource_devices"))
        .allSatisfy(s -> assertThat(s.labels()).containsEntry("resource", GPU));
  }

  @Test
  void followShowsTheCurrentSnapshotWithoutWaitingForAChange() {
    PrometheusMeterRegistry other = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DeviceHealthMetrics late = new DeviceHealthMetrics();
    late.bindTo(other);
    late.follow(store);

    assertThat(Exposition.parse(other.scrape()).series("acceld_device_health")).hasSize(3);
  }

  @Test
  void reasonsAreShortFixedCategories() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(HealthReasons.label(gpu0)).isEmpty();
    assertThat(HealthReasons.label(lost(gpu0))).isEqualTo("gpu_lost");
    assertThat(
            HealthReasons.label(
                unhealthy(gpu0, HealthProblem.deviceNodeMissing(Path.of("/dev/nvidia0")))))
        .isEqualTo("device_node_missing");
    // an XID 79 is the driver saying the GPU fell off the bus
    assertThat(HealthReasons.label(unhealthy(gpu0, HealthMark.xid(gpu0.id(), 79, now).problem())))
        .isEqualTo("gpu_lost");
    assertThat(HealthReasons.label(unhealthy(gpu0, HealthMark.xid(gpu0.id(), 48, now).problem())))
        .isEqualTo("xid");
    assertThat(
            HealthReasons.label(
                unhealthy(
                    gpu0,
                    HealthMark.of(gpu0.id(), HealthSource.ECC, now, "double-bit ECC error")
                        .problem())))
        .isEqualTo("ecc_error");
    assertThat(
            HealthReasons.label(
                unhealthy(
                    gpu0,
                    HealthMark.of(gpu0.id(), HealthSource.RETIRED_PAGES, now, "retired pages")
                        .problem())))
        .isEqualTo("memory_retirement");
    assertThat(
            HealthReasons.label(
                unhealthy(
                    gpu0, HealthProblem.of(Kind.NVML_ERROR, "NVML call failed: ERROR_UNKNOWN"))))
        .isEqualTo("nvml_error");
    assertThat(
            HealthReasons.label(
                gpu0.withHealth(Health.UNHEALTHY, Optional.of("the moon is in the wrong phase"))))
        .isEqualTo("other");
    assertThat(HealthReasons.label(gpu0.withHealth(Health.UNHEALTHY, Optional.empty())))
        .isEqualTo("unknown");
    // several problems: the first one names the series
    assertThat(
            HealthReasons.label(
                gpu0.withProblems(
                    List.of(
                        HealthProblem.deviceNodeMissing(Path.of("/dev/nvidia0")),
                        HealthProblem.gpuLost()))))
        .isEqualTo("device_node_missing");
  }

  @Test
  void theLabelIsTheProblemsKindWhateverItsTextSays() {
    Device misleading =
        unhealthy(gpu0, HealthProblem.of(Kind.RETIRED_PAGES, "not an XID, not lost, no ECC"));

    assertThat(HealthReasons.label(misleading)).isEqualTo("memory_retirement");
    assertThat(Arrays.stream(Kind.values()).map(HealthReasons::label))
        .doesNotHaveDuplicates()
        .doesNotContain("");
  }

  private void publish(Device... devices) {
    store.publish(TestDevices.inventory(List.of(devices)));
  }

  private static Device lost(Device d) {
    return unhealthy(d, HealthProblem.gpuLost());
  }

  private static Device unhealthy(Device d, HealthProblem problem) {
    return d.withProblems(List.of(problem));
  }

  private Exposition scrape() {
    return Exposition.parse(registry.scrape());
  }
}
