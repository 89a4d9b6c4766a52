package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.DurationInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ACCEPTed tasks between their lease and the task book. */
class LaunchesInFlightTest {
  final LaunchesInFlight launches = new LaunchesInFlight();
  final Holder.MesosTask a = new Holder.MesosTask("fw", "a");
  final Holder.MesosTask b = new Holder.MesosTask("fw", "b");

  @Test
  void aKillOfATaskNotInFlightIsNotHeld() {
    assertThat(launches.deferKill(a, Optional.empty())).isFalse();

    launches.begin(a, Quantities.NONE);
    launches.end(a);

    assertThat(launches.deferKill(a, Optional.empty())).isFalse();
    assertThat(launches.contains(a)).isFalse();
  }

  @Test
  void aKillDuringTheLaunchComesOutOnceWithItsPolicy() {
    KillPolicy policy =
        KillPolicy.newBuilder().setGracePeriod(DurationInfo.newBuilder().setNanoseconds(5)).build();
    launches.begin(a, Quantities.NONE);
    launches.begin(b, Quantities.NONE);

    assertThat(launches.deferKill(a, Optional.of(policy))).isTrue();

    assertThat(launches.end(a)).contains(new LaunchesInFlight.DeferredKill(Optional.of(policy)));
    assertThat(launches.end(b)).isEmpty();
    assertThat(launches.end(a)).isEmpty();
  }

  @Test
  void whatLaunchesUseIsAddedButForTasksTheBookAlreadyCounts() {
    launches.begin(a, new Quantities(Map.of("cpus", 1.0, "mem", 128.0)));
    launches.begin(b, new Quantities(Map.of("cpus", 2.0)));

    Quantities used = launches.plusUsedBesides(Quantities.of("cpus", 0.5), Set.of(b));

    assertThat(used.get("cpus")).isEqualTo(1.5);
    assertThat(used.get("mem")).isEqualTo(128.0);
  }
}
