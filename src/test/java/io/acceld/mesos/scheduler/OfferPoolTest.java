package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pool an ACCEPT's operations draw from: its offers added up. */
class OfferPoolTest {
  static OutstandingOffer offer(String id, Quantities amounts, Map<String, List<String>> devices) {
    return new OutstandingOffer(
        Offer.newBuilder()
            .setId(OfferID.newBuilder().setValue(id))
            .setFrameworkId(FrameworkID.newBuilder().setValue("fw"))
            .buildPartial(), // only what the pool reads
        "*",
        amounts,
        devices);
  }

  @Test
  void addsUpAmountsAndDevicesInTheOffersOrder() {
    OfferPool pool =
        OfferPool.of(
            List.of(
                offer(
                    "o1",
                    new Quantities(Map.of("cpus", 1.0, "gpus", 1.0)),
                    Map.of("gpus", List.of("g1"))),
                offer(
                    "o2",
                    new Quantities(Map.of("cpus", 2.0, "gpus", 2.0)),
                    Map.of("gpus", List.of("g2", "g3")))));

    assertThat(pool.amounts().get("cpus")).isEqualTo(3.0);
    assertThat(pool.amounts().get("gpus")).isEqualTo(3.0);
    assertThat(pool.devices()).containsExactly(Map.entry("gpus", List.of("g1", "g2", "g3")));
    assertThat(pool.why()).isEqualTo("ACCEPT of [o1, o2]");
  }

  @Test
  void noOffersMakeAnEmptyPool() {
    OfferPool pool = OfferPool.of(List.of());

    assertThat(pool.amounts().isEmpty()).isTrue();
    assertThat(pool.devices()).isEmpty();
  }
}
