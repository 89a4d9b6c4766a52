package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.amount;
import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.proto.mesos.v1.Offer;
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

/** An outstanding offer never outlives the availability of a device in it by more than 100 ms. */
class RescindTest {
  static final Duration WITHIN = Duration.ofMillis(100);

  @TempDir Path root;
  MasterFixture m;
  final List<Device> devices =
      List.of(
          TestDevices.nvidia(0, 0),
          TestDevices.nvidia(1, 0),
          TestDevices.nvidia(2, 1),
          TestDevices.nvidia(3, 1));

  @BeforeEach
  void start() throws Exception {
    m = new MasterFixture(root, devices);
  }

  @AfterEach
  void stop() {
    m.close();
  }

  /** Waits for the RESCIND of {@code offer}, failing if it takes longer than 100 ms. */
  static void rescinded(Scheduler s, Offer offer) {
    Event e = s.events().next(ev -> ev.getType() == Event.Type.RESCIND, WITHIN);
    assertThat(e.getRescind().getOfferId()).isEqualTo(offer.getId());
  }

  @Test
  void aGpuGoingUnhealthyRescindsTheOfferAndTheRestIsOfferedAgain() {
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);

    m.publish(
        List.of(
            devices.get(0).withHealth(Health.UNHEALTHY, Optional.of("Xid 79")),
            devices.get(1),
            devices.get(2),
            devices.get(3)));

    rescinded(s, offer);
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(3);
  }

  @Test
  void aKubeletLeaseRescindsTheOfferAndTheRestIsOfferedAgain() {
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);

    assertThat(
            m.ledger
                .lease(
                    new Holder.KubeletPending("alloc-1"),
                    List.of(ReplicaId.whole(TestDevices.uuid(2))),
                    "Allocate")
                .granted())
        .isTrue();

    rescinded(s, offer);
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(3);
  }

  @Test
  void anUnpluggedGpuRescindsTheOffer() {
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);

    m.publish(devices.subList(1, 4));

    rescinded(s, offer);
    assertThat(amount(m.nextOffer(s), "gpus")).isEqualTo(3);
  }

  @Test
  void anOfferWithoutTheChangedDeviceStands() {
    m.ledger.lease(
        new Holder.KubeletPending("alloc-1"), List.of(ReplicaId.whole(TestDevices.uuid(0))), "t");
    Scheduler s = m.subscribe(gpuFramework());
    m.nextOffer(s);

    m.publish(
        List.of(
            devices.get(0).withHealth(Health.UNHEALTHY, Optional.of("Xid 79")),
            devices.get(1),
            devices.get(2),
            devices.get(3)));

    assertThat(s.events().arrives(e -> e.getType() == Event.Type.RESCIND, Duration.ofMillis(300)))
        .isFalse();
  }
}
