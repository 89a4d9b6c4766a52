package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.testing.TestDevices;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResourceViewTest {
  @Test
  void listsEveryDeviceWithExactHealthStringsAndNumaTopology() {
    Device sick = TestDevices.nvidia(1, 1).withHealth(Health.UNHEALTHY, Optional.of("XID 79"));
    ResourceView view =
        ResourceView.of(
            TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), sick, TestDevices.amd(1, 0))),
            "nvidia.com/gpu",
            SharingPolicy.NONE);

    ListAndWatchResponse list = view.listAndWatchResponse();
    assertThat(list.getDevicesList())
        .extracting(io.acceld.proto.deviceplugin.v1beta1.Device::getID)
        .containsExactly(TestDevices.uuid(0), TestDevices.uuid(1));
    assertThat(list.getDevices(0).getHealth()).isEqualTo("Healthy");
    assertThat(list.getDevices(1).getHealth()).isEqualTo("Unhealthy");
    assertThat(list.getDevices(1).getTopology().getNodes(0).getID()).isEqualTo(1);
    assertThat(view.advertisedName()).isEqualTo("nvidia.com/gpu");
  }

  @Test
  void unknownNumaLeavesTopologyUnset() {
    ResourceView view =
        ResourceView.of(
            TestDevices.inventory(List.of(TestDevices.nvidiaWithoutNvml(0))),
            "nvidia.com/gpu",
            SharingPolicy.NONE);

    assertThat(view.listAndWatchResponse().getDevices(0).hasTopology()).isFalse();
  }

  @Test
  void replicasAdvertiseEachDeviceNTimesAndMapBack() {
    ResourceView view =
        ResourceView.of(
            TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))),
            "nvidia.com/gpu",
            new SharingPolicy(3, true));

    assertThat(view.advertisedName()).isEqualTo("nvidia.com/gpu.shared");
    assertThat(view.devices()).hasSize(6);
    assertThat(view.devices().get(0).kubeletId()).isEqualTo(TestDevices.uuid(0) + "::0");
    assertThat(view.lookup(TestDevices.uuid(1) + "::2").orElseThrow().device().id())
        .isEqualTo(TestDevices.uuid(1));
    assertThat(view.lookup(TestDevices.uuid(1))).isEmpty();
  }

  @Test
  void sameListDetectsOnlyAdvertisedChanges() {
    var inventory = TestDevices.inventory(List.of(TestDevices.nvidia(0, 0)));
    ResourceView a = ResourceView.of(inventory, "nvidia.com/gpu", SharingPolicy.NONE);
    ResourceView b = ResourceView.of(inventory, "nvidia.com/gpu", SharingPolicy.NONE);
    ResourceView sick =
        ResourceView.of(
            TestDevices.inventory(
                List.of(
                    TestDevices.nvidia(0, 0).withHealth(Health.UNHEALTHY, Optional.of("lost")))),
            "nvidia.com/gpu",
            SharingPolicy.NONE);

    assertThat(a.sameListAs(b)).isTrue();
    assertThat(a.sameListAs(sick)).isFalse();
  }
}
