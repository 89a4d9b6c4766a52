package io.acceld.kubelet.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeviceOwnersTest {
  @Test
  void replicaIdsNameTheirPhysicalDevice() {
    assertThat(DeviceOwners.physicalId("GPU-a::7")).isEqualTo("GPU-a");
    assertThat(DeviceOwners.physicalId("GPU-a")).isEqualTo("GPU-a");
    assertThat(DeviceOwners.physicalId("0000:3b:00.0")).isEqualTo("0000:3b:00.0");
    assertThat(DeviceOwners.physicalId("0000:3b:00.0::1")).isEqualTo("0000:3b:00.0");
  }

  @Test
  void anEmptyAnswerMeansNoOwners() {
    assertThat(DeviceOwners.index(FakePodResources.pods())).isEmpty();
  }
}
