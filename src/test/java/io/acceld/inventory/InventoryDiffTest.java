package io.acceld.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InventoryDiffTest {
  static Device gpu(String id, String resource) {
    return new Device(
        id,
        resource,
        0x10de,
        0x2330,
        "H100",
        "0000:3b:00.0",
        0,
        Optional.of("nvidia"),
        List.of("nvidia0"),
        Health.HEALTHY,
        Optional.empty(),
        Optional.empty());
  }

  static Inventory inventory(Device... devices) {
    return new Inventory(List.of(devices), NodeInfo.EMPTY, Topology.EMPTY);
  }

  @Test
  void reportsAddedRemovedAndChangedDevices() {
    Device a = gpu("GPU-a", "nvidia.com/gpu");
    Device b = gpu("GPU-b", "nvidia.com/gpu");
    Device c = gpu("0000:41:00.0", "amd.com/gpu");
    Device bSick = b.withHealth(Health.UNHEALTHY, Optional.of("XID 79"));

    InventoryDiff diff = InventoryDiff.between(inventory(a, b), inventory(bSick, c));

    assertThat(diff.added()).containsExactly(c);
    assertThat(diff.removed()).containsExactly(a);
    assertThat(diff.changed()).containsExactly(new InventoryDiff.Change(b, bSick));
    assertThat(diff.affectedResources()).containsExactly("amd.com/gpu", "nvidia.com/gpu");
  }

  @Test
  void theSameDevicesInAnotherOrderAreNoChange() {
    Device a = gpu("GPU-a", "nvidia.com/gpu");
    Device b = gpu("GPU-b", "nvidia.com/gpu");

    assertThat(InventoryDiff.between(inventory(a, b), inventory(b, a)).isEmpty()).isTrue();
  }

  @Test
  void aTopologyChangeAloneIsAChange() {
    Device a = gpu("GPU-a", "nvidia.com/gpu");
    Device b = gpu("GPU-b", "nvidia.com/gpu");
    Inventory linked =
        new Inventory(
            List.of(a, b),
            NodeInfo.EMPTY,
            Topology.builder().put("GPU-a", "GPU-b", PcieLevel.SINGLE, 4).build());

    InventoryDiff diff = InventoryDiff.between(inventory(a, b), linked);

    assertThat(diff.isEmpty()).isFalse();
    assertThat(diff.topologyChanged()).isTrue();
  }

  @Test
  void healthyDevicesCarryNoReasonAndIdsAreChecked() {
    Device sick = gpu("GPU-a", "nvidia.com/gpu").withHealth(Health.UNHEALTHY, Optional.of("lost"));
    assertThat(sick.withHealth(Health.HEALTHY, Optional.of("ignored")).healthReason()).isEmpty();
    assertThatThrownBy(() -> gpu("a,b", "nvidia.com/gpu")).hasMessageContaining("without commas");
    assertThatThrownBy(() -> gpu("x".repeat(64), "nvidia.com/gpu")).hasMessageContaining("1-63");
    assertThatThrownBy(() -> inventory(gpu("GPU-a", "x.com/a"), gpu("GPU-a", "x.com/a")))
        .hasMessageContaining("share the ID");
  }

  @Test
  void storeNotifiesListenersOfRealChangesOnlyAndSurvivesAFailingListener() {
    InventoryStore store = new InventoryStore();
    List<InventoryDiff> seen = new ArrayList<>();
    store.subscribe(
        (current, diff) -> {
          throw new IllegalStateException("listener bug");
        });
    store.subscribe((current, diff) -> seen.add(diff));
    Device a = gpu("GPU-a", "nvidia.com/gpu");

    store.publish(inventory(a));
    store.publish(inventory(a));
    store.publish(inventory());

    assertThat(seen).hasSize(2);
    assertThat(seen.get(0).added()).containsExactly(a);
    assertThat(seen.get(1).removed()).containsExactly(a);
    assertThat(store.current().devices()).isEmpty();
  }

  @Test
  void resourceNamesFollowTheKubeletRules() {
    assertThat(ResourceNames.isValid("nvidia.com/gpu")).isTrue();
    assertThat(ResourceNames.isValid("gpu.intel.com/i915")).isTrue();
    assertThat(ResourceNames.problem("gpu")).get().asString().contains("<domain>/<name>");
    assertThat(ResourceNames.problem("kubernetes.io/gpu")).get().asString().contains("reserved");
    assertThat(ResourceNames.problem("foo.kubernetes.io/gpu"))
        .get()
        .asString()
        .contains("reserved");
    assertThat(ResourceNames.problem("Example.com/gpu")).get().asString().contains("DNS subdomain");
    assertThat(ResourceNames.problem("example.com/-gpu")).isPresent();
    assertThat(ResourceNames.problem("example.com/" + "g".repeat(64))).isPresent();
  }
}
