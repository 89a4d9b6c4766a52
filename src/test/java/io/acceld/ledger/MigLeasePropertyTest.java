package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random mixes of whole-GPU and MIG leases from pods and Mesos tasks, with GPUs re-partitioned (MIG
 * mode on and off, other layouts) under them: no GPU is ever leased whole while a MIG device of it
 * is leased, nor a MIG device twice, and a checkpoint round trip keeps that knowledge.
 */
class MigLeasePropertyTest {
  static final int GPUS = 3;
  static final int STEPS = 3_000;

  /** Each GPU either whole or in MIG mode with one of two layouts (GPU-instance IDs). */
  static Inventory layout(int[] modes) {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < GPUS; i++) {
      int g = i;
      switch (modes[g]) {
        case 0 -> devices.add(TestDevices.nvidia(g, 0));
        case 1 -> List.of(7, 8, 9).forEach(gi -> devices.add(TestDevices.mig(g, gi, "1g.10gb")));
        default -> List.of(7, 11).forEach(gi -> devices.add(TestDevices.mig(g, gi, "2g.20gb")));
      }
    }
    return TestDevices.inventory(devices);
  }

  @TempDir Path state;

  @Test
  void aGpuIsNeverLeasedWholeAndAsMigDevicesAtOnce() throws Exception {
    long seed = Long.getLong("acceld.seed", 20261202L);
    Random random = new Random(seed);
    DeviceLedger ledger = DeviceLedger.inMemory(new MutableClock());
    int[] modes = new int[GPUS];
    publish(ledger, layout(modes));
    List<Holder> holders = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      holders.add(new Holder.MesosTask("fw", "t-" + i));
      holders.add(new Holder.KubeletPending("alloc-" + i));
    }
    int granted = 0;
    for (int step = 0; step < STEPS; step++) {
      int op = random.nextInt(10);
      if (op < 6) {
        List<Device> present = ledger.current().inventory().devices();
        Device d = present.get(random.nextInt(present.size()));
        Holder h = holders.get(random.nextInt(holders.size()));
        if (ledger.lease(h, List.of(ReplicaId.whole(d.id())), "step " + step).granted()) {
          granted++;
        }
      } else if (op < 8) {
        ledger.release(holders.get(random.nextInt(holders.size())));
      } else {
        modes[random.nextInt(GPUS)] = random.nextInt(3);
        publish(ledger, layout(modes));
      }
      assertNoGpuHeldTwice(ledger.current(), "seed " + seed + " step " + step);
    }
    assertThat(granted).as("the run leased something").isGreaterThan(STEPS / 20);

    // What the checkpoint keeps is enough to refuse the same leases after a restart.
    Availability now = ledger.current();
    LeaseCheckpoint checkpoint = new LeaseCheckpoint(state);
    checkpoint.write(now);
    List<Lease> restored = checkpoint.read();
    assertThat(restored).containsExactlyInAnyOrderElementsOf(now.leases());
    DeviceLedger again = new DeviceLedger(new MutableClock(), LeaseStore.NONE, restored);
    publish(again, now.inventory());
    for (Lease l : now.leases()) {
      String gpu = l.partOf().orElse(l.deviceId());
      for (Device d : now.inventory().devices()) {
        boolean sameGpu = Availability.parentOf(d).orElse(d.id()).equals(gpu);
        boolean otherShape = Availability.parentOf(d).isPresent() != l.partOf().isPresent();
        if (sameGpu && otherShape) {
          assertThat(
                  again
                      .lease(
                          new Holder.MesosTask("fw", "after-restart"),
                          List.of(ReplicaId.whole(d.id())),
                          "x")
                      .granted())
              .as("%s after a restart while %s holds its GPU", d.id(), l.describeHolder())
              .isFalse();
        }
      }
    }
  }

  private static void publish(DeviceLedger ledger, Inventory next) {
    ledger.onChange(next, InventoryDiff.between(ledger.current().inventory(), next));
  }

  private static void assertNoGpuHeldTwice(Availability a, String where) {
    Map<String, Set<String>> holdersByGpu = new HashMap<>();
    Map<String, Integer> wholeLeases = new HashMap<>();
    for (Lease l : a.leases()) {
      String gpu = l.partOf().orElse(l.deviceId());
      holdersByGpu
          .computeIfAbsent(gpu, k -> new TreeSet<>())
          .add(l.partOf().isPresent() ? "mig" : "whole");
      if (l.partOf().isEmpty()) {
        wholeLeases.merge(gpu, 1, Integer::sum);
      }
    }
    holdersByGpu.forEach(
        (gpu, kinds) ->
            assertThat(kinds)
                .as("%s: GPU %s leased whole and as MIG devices", where, gpu)
                .hasSize(1));
    wholeLeases.forEach(
        (gpu, n) -> assertThat(n).as("%s: GPU %s leased whole twice", where, gpu).isEqualTo(1));
    assertThat(a.leases().stream().map(Lease::slot).distinct().count())
        .as(where)
        .isEqualTo(a.leases().size());
  }
}
