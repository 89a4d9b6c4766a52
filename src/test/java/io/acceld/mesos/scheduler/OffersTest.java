package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.amount;
import static io.acceld.mesos.scheduler.MasterFixture.framework;
import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.proto.mesos.v1.Attribute;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffersTest {
  /** Longer than the allocation interval: an offer that was going to come has come. */
  static final Duration NO_OFFER_WITHIN = MesosMaster.ALLOCATION_INTERVAL.multipliedBy(2);

  @TempDir Path root;
  MasterFixture m;
  final List<Device> devices =
      List.of(
          TestDevices.nvidia(0, 0),
          TestDevices.nvidia(1, 0),
          TestDevices.nvidia(2, 1),
          TestDevices.nvidia(3, 1),
          TestDevices.amd(0, 0));

  @BeforeEach
  void start() throws Exception {
    m = new MasterFixture(root, devices);
  }

  @AfterEach
  void stop() {
    m.close();
  }

  static boolean isOffers(Event e) {
    return e.getType() == Event.Type.OFFERS;
  }

  @Test
  void anOfferHoldsTheFreeDevicesCpusAndMemoryOfThisAgent() {
    Scheduler s = m.subscribe(gpuFramework());

    Offer offer = m.nextOffer(s);

    assertThat(amount(offer, "gpus")).isEqualTo(4);
    assertThat(amount(offer, "amd.com/gpu")).isEqualTo(1);
    assertThat(amount(offer, "cpus")).as("8 minus the reserve").isEqualTo(7);
    assertThat(amount(offer, "mem")).isEqualTo(16384 - 1024);
    assertThat(amount(offer, "disk")).isPositive();
    assertThat(offer.getAgentId()).isEqualTo(m.agent());
    assertThat(offer.getFrameworkId()).isEqualTo(s.id());
    assertThat(offer.getHostname()).isEqualTo("node-1");
    assertThat(offer.getUrl().getScheme()).isEqualTo("http");
    assertThat(offer.getUrl().getPath()).isEqualTo("/slave(1)");
    assertThat(offer.getUrl().getAddress().getPort()).isEqualTo(5050);
    assertThat(offer.getId().getValue()).startsWith(m.master.masterInfo().getId() + "-O");
    assertThat(offer.getAllocationInfo().getRole()).isEqualTo("*");
    assertThat(offer.getAttributesList())
        .extracting(Attribute::getName)
        .contains("gpu_model", "gpu_numa_nodes");
    assertThat(
            offer.getAttributesList().stream()
                .filter(a -> a.getName().equals("gpu_model"))
                .findFirst()
                .orElseThrow()
                .getText()
                .getValue())
        .isEqualTo("NVIDIA_H100_80GB_HBM3");
    for (Resource r : offer.getResourcesList()) {
      assertThat(r.getAllocationInfo().getRole()).isEqualTo("*");
      assertThat(r.hasRole()).as("without RESERVATION_REFINEMENT: role '*'").isTrue();
      assertThat(r.getRole()).isEqualTo("*");
    }
  }

  @Test
  void withReservationRefinementUnreservedResourcesCarryNoRole() {
    Scheduler s =
        m.subscribe(
            framework(
                    FrameworkInfo.Capability.Type.GPU_RESOURCES,
                    FrameworkInfo.Capability.Type.RESERVATION_REFINEMENT,
                    FrameworkInfo.Capability.Type.MULTI_ROLE)
                .addRoles("ml"));

    Offer offer = m.nextOffer(s);

    assertThat(offer.getAllocationInfo().getRole()).isEqualTo("ml");
    for (Resource r : offer.getResourcesList()) {
      assertThat(r.hasRole()).isFalse();
      assertThat(r.getReservationsList()).isEmpty();
      assertThat(r.getAllocationInfo().getRole()).isEqualTo("ml");
    }
  }

  @Test
  void offerIdsAreUnique() {
    Scheduler s = m.subscribe(gpuFramework());
    Offer first = m.nextOffer(s);
    m.call(s, decline(first, 0));
    Offer second = m.nextOffer(s);
    assertThat(second.getId()).isNotEqualTo(first.getId());
  }

  @Test
  void withoutGpuResourcesAFrameworkGetsNoOfferUntilItAddsTheCapability() {
    Scheduler s = m.subscribe(framework());
    assertThat(s.events().arrives(OffersTest::isOffers, NO_OFFER_WITHIN)).isFalse();

    Reply reply =
        m.call(
            s,
            Call.newBuilder()
                .setType(Call.Type.UPDATE_FRAMEWORK)
                .setUpdateFramework(
                    Call.UpdateFramework.newBuilder()
                        .setFrameworkInfo(
                            s.info().toBuilder()
                                .addCapabilities(
                                    FrameworkInfo.Capability.newBuilder()
                                        .setType(FrameworkInfo.Capability.Type.GPU_RESOURCES)))));

    assertThat(reply).isInstanceOf(Reply.Ok.class);
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(4);
  }

  @Test
  void theGpuFilterCanBeTurnedOff() throws Exception {
    m.close();
    m = new MasterFixture(root, devices, new io.acceld.allocation.TopologyAwareChooser(), false);
    Scheduler s = m.subscribe(framework());
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(4);
  }

  @Test
  void noOffersUntilOfferingIsAllowed() {
    m.mayOffer.set(false);
    Scheduler s = m.subscribe(gpuFramework());
    assertThat(s.events().arrives(OffersTest::isOffers, NO_OFFER_WITHIN)).isFalse();

    m.mayOffer.set(true);

    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(4);
  }

  @Test
  void aDeclineHoldsTheOfferBackForRefuseSecondsAndReviveEndsThat() {
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, decline(m.nextOffer(s), 3600));
    assertThat(s.events().arrives(OffersTest::isOffers, NO_OFFER_WITHIN)).isFalse();

    m.call(
        s, Call.newBuilder().setType(Call.Type.REVIVE).setRevive(Call.Revive.getDefaultInstance()));

    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(4);
  }

  @Test
  void aShortRefusalExpires() {
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, decline(m.nextOffer(s), 0.2));
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(4);
  }

  @Test
  void refuseSecondsFollowMesossRules() {
    assertThat(DeclineFilter.refuseSeconds(false, 0)).isEqualTo(5);
    assertThat(DeclineFilter.refuseSeconds(true, -1)).isEqualTo(5);
    assertThat(DeclineFilter.refuseSeconds(true, 1e12)).isEqualTo(31536000);
    assertThat(DeclineFilter.refuseSeconds(true, 0)).isZero();
  }

  @Test
  void suppressStopsOffersForTheRoleAndReviveStartsThem() {
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);
    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.SUPPRESS)
            .setSuppress(Call.Suppress.newBuilder().addRoles("*")));
    m.call(s, decline(offer, 0));
    assertThat(s.events().arrives(OffersTest::isOffers, NO_OFFER_WITHIN)).isFalse();

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.REVIVE)
            .setRevive(Call.Revive.newBuilder().addRoles("*")));

    m.nextOffer(s);
  }

  @Test
  void devicesThePodsHoldAreNeverOffered() {
    m.ledger.lease(
        new Holder.KubeletPending("alloc-1"),
        List.of(ReplicaId.whole(TestDevices.uuid(0))),
        "Allocate");
    m.ledger.lease(
        new Holder.KubeletPending("alloc-2"),
        List.of(ReplicaId.of(TestDevices.uuid(1), 2)),
        "Allocate");
    Scheduler s = m.subscribe(gpuFramework());

    assertThat(amount(m.nextOffer(s), "gpus"))
        .as("a GPU with a replica leased is not free")
        .isEqualTo(2);
  }

  @Test
  void anUnhealthyDeviceIsNotOffered() {
    m.publish(
        List.of(
            TestDevices.nvidia(0, 0).withHealth(Health.UNHEALTHY, Optional.of("Xid 79")),
            TestDevices.nvidia(1, 0)));
    Scheduler s = m.subscribe(gpuFramework());
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(1);
  }

  @Test
  void aMalformedReserveIsRefusedNamingThePart() {
    assertThatThrownBy(() -> Reserve.parse("cpus:1;gpus:2"))
        .hasMessageContaining("unknown resource 'gpus'");
    assertThatThrownBy(() -> Reserve.parse("cpus=1"))
        .hasMessageContaining("'cpus=1' must be name:amount");
    assertThatThrownBy(() -> Reserve.parse("mem:lots"))
        .hasMessageContaining("not a number: 'lots'");
    assertThatThrownBy(() -> Reserve.parse("mem:-1")).hasMessageContaining(">= 0");
    assertThat(Reserve.parse("cpus:1;mem:1024;disk:0").get("mem")).isEqualTo(1024);
  }

  static Call.Builder decline(Offer offer, double refuseSeconds) {
    return Call.newBuilder()
        .setType(Call.Type.DECLINE)
        .setDecline(
            Call.Decline.newBuilder()
                .addOfferIds(offer.getId())
                .setFilters(Filters.newBuilder().setRefuseSeconds(refuseSeconds)));
  }
}
