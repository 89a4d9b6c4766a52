package io.acceld.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplicaIdTest {
  @Test
  void replicaIdsNameTheirPhysicalDevice() {
    assertThat(ReplicaId.physicalOf("GPU-7f3a::3")).isEqualTo("GPU-7f3a");
    assertThat(ReplicaId.physicalOf("0000:3b:00.0::1")).isEqualTo("0000:3b:00.0");
    assertThat(ReplicaId.physicalOf("0000:3b:00.0")).isEqualTo("0000:3b:00.0");
    assertThat(ReplicaId.physicalOf("a::b::12")).isEqualTo("a::b");
    assertThat(ReplicaId.physicalOf("GPU-7f3a")).isEqualTo("GPU-7f3a");
  }

  @Test
  void idsThatOnlyLookLikeReplicasAreWholeDevices() {
    assertThat(ReplicaId.parse("gpu::")).isEqualTo(ReplicaId.whole("gpu::"));
    assertThat(ReplicaId.parse("::1")).isEqualTo(ReplicaId.whole("::1"));
    assertThat(ReplicaId.parse("gpu::x1")).isEqualTo(ReplicaId.whole("gpu::x1"));
    assertThat(ReplicaId.parse("gpu::99999999999")).isEqualTo(ReplicaId.whole("gpu::99999999999"));
  }

  @Test
  void parseAndFormatRoundTrip() {
    ReplicaId r = ReplicaId.of("GPU-a", 7);
    assertThat(r.advertisedId()).isEqualTo("GPU-a::7");
    assertThat(ReplicaId.parse(r.advertisedId())).isEqualTo(r);
    assertThat(ReplicaId.whole("GPU-a").advertisedId()).isEqualTo("GPU-a");
  }

  @Test
  void aWholeDeviceOverlapsEachOfItsReplicasButReplicasDoNotOverlapEachOther() {
    assertThat(ReplicaId.whole("a").overlaps(ReplicaId.of("a", 2))).isTrue();
    assertThat(ReplicaId.of("a", 2).overlaps(ReplicaId.whole("a"))).isTrue();
    assertThat(ReplicaId.of("a", 2).overlaps(ReplicaId.of("a", 2))).isTrue();
    assertThat(ReplicaId.of("a", 2).overlaps(ReplicaId.of("a", 3))).isFalse();
    assertThat(ReplicaId.whole("a").overlaps(ReplicaId.whole("b"))).isFalse();
  }
}
