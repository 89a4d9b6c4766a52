package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.testing.TestDevices;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the next offer would hold, built from the ledger's availability alone. */
class OfferCandidateTest {
  static final Quantities SCALARS = new Quantities(Map.of("cpus", 4.0, "mem", 1024.0));

  final Device gpu0 = TestDevices.nvidia(0, 0);
  final Device gpu1 = TestDevices.nvidia(1, 0);
  final Device gpu2 = TestDevices.nvidia(2, 1);
  final Inventory inventory = TestDevices.inventory(List.of(gpu0, gpu1, gpu2));

  @Test
  void offersEveryAvailableDeviceNoOutstandingOfferHolds() {
    Lease leased =
        new Lease(
            ReplicaId.whole(gpu1.id()), new Holder.MesosTask("fw", "t"), Instant.EPOCH, "test");
    Availability availability = Availability.of(inventory, List.of(leased));

    OfferCandidate candidate = OfferCandidate.of(availability, Set.of(gpu2.id()), SCALARS);

    assertThat(candidate.devices()).isEqualTo(Map.of("gpus", List.of(gpu0.id())));
    assertThat(candidate.amounts().get("gpus")).isEqualTo(1.0);
    assertThat(candidate.amounts().get("cpus")).isEqualTo(4.0);
    assertThat(candidate.amounts().get("mem")).isEqualTo(1024.0);
    assertThat(candidate.hasGpus()).isTrue();
  }

  @Test
  void aNodeWhoseGpusAreAllTakenStillHasGpusForTheGpuFilter() {
    Availability availability = Availability.of(inventory, List.of());

    OfferCandidate candidate =
        OfferCandidate.of(availability, Set.of(gpu0.id(), gpu1.id(), gpu2.id()), Quantities.NONE);

    assertThat(candidate.devices()).isEmpty();
    assertThat(candidate.hasGpus()).isTrue();
    assertThat(candidate.worthOffering()).isFalse();
  }

  @Test
  void worthOfferingTakesADeviceOrMesossLeastCpusOrMemory() {
    Availability none = Availability.of(Inventory.EMPTY, List.of());

    assertThat(OfferCandidate.of(none, Set.of(), Quantities.of("cpus", 0.009)).worthOffering())
        .isFalse();
    assertThat(OfferCandidate.of(none, Set.of(), Quantities.of("cpus", 0.01)).worthOffering())
        .isTrue();
    assertThat(OfferCandidate.of(none, Set.of(), Quantities.of("mem", 31)).worthOffering())
        .isFalse();
    assertThat(OfferCandidate.of(none, Set.of(), Quantities.of("mem", 32)).worthOffering())
        .isTrue();
    assertThat(
            OfferCandidate.of(Availability.of(inventory, List.of()), Set.of(), Quantities.NONE)
                .worthOffering())
        .isTrue();
  }
}
