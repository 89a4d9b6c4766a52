package io.acceld.kubelet.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeviceOwnersTest {
  @Test
  void anEmptyAnswerMeansNoOwners() {
    assertThat(DeviceOwners.index(FakePodResources.pods(), name -> true)).isEmpty();
  }
}
