package io.acceld.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.HotPlug;
import io.acceld.testing.kubelet.DeviceState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: PCI devices flapping. Each round unplugs one to three GPUs at once (their sysfs
 * functions removed, NVML reporting them lost), some of them leased, and plugs them back in. After
 * each change the kubelet's ListAndWatch converges to the truth within a bound; a lease on a
 * flapping GPU is never lost or moved: when the GPU is back it is held by the same holder.
 */
class PciFlappingChaosIT {
  static final String GPU = ChaosNode.GPU;
  static final int ROUNDS = Integer.getInteger("acceld.pciFlappingRounds", 10);
  static final Duration CONVERGED_WITHIN = Duration.ofSeconds(3);
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  ChaosNode node;

  @AfterEach
  void close() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void listAndWatchFollowsTheFlappingAndNoLeaseIsLost() throws Exception {
    ChaosSeed seed = ChaosSeed.of("PciFlappingChaosIT");
    Random random = seed.random();
    node =
        ChaosNode.start(
            root,
            Map.of(
                "rescan-interval", "200ms",
                "presence-poll-interval", "200ms",
                "health-probe-interval", "200ms"));
    node.kubelet.awaitDevices(GPU, PciFlappingChaosIT::allEightHealthy, WAIT);
    Map<String, String> holders = new HashMap<>(); // device -> holder, as leased
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      List<Integer> gpus = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 6, 7));
      Collections.shuffle(gpus, random);
      List<Integer> flapping = gpus.subList(0, 1 + random.nextInt(3));
      String what = seed.tag("round " + round + " (GPUs " + flapping + ")");
      // Lease one of them first, when one is free (the kubelet's Allocate, answered).
      Map<String, Holding> now = node.devices();
      for (int gpu : flapping) {
        String id = node.uuid(gpu);
        if (now.get(id).free()) {
          node.kubelet.allocateOne(GPU, List.of(id));
          holders.put(id, node.devices().get(id).holder());
          break;
        }
      }
      Set<String> gone =
          flapping.stream().map(node::uuid).collect(Collectors.toCollection(TreeSet::new));

      for (int gpu : flapping) {
        node.nvml.control().acceld_fake_set_lost(gpu, 1);
        HotPlug.unplug(node.node.tree(), node.node.gpus().get(gpu).pciAddress());
      }
      awaitKubelet(
          what + ": the unplugged GPUs leave the list",
          l -> l.size() == 8 - gone.size() && l.stream().noneMatch(d -> gone.contains(d.id())));

      for (int gpu : flapping) {
        node.nvml.control().acceld_fake_set_lost(gpu, 0);
        HotPlug.replug(node.node, gpu);
      }
      awaitKubelet(what + ": all eight back and healthy", PciFlappingChaosIT::allEightHealthy);
      Map<String, Holding> after = node.devices();
      for (Map.Entry<String, String> held : holders.entrySet()) {
        assertThat(after.get(held.getKey()).holder())
            .as(what + ": the lease of %s after the flapping", held.getKey())
            .isEqualTo(held.getValue());
      }
      assertThat(after.values().stream().filter(h -> !h.free()).count())
          .as(what + ": no lease appeared or vanished")
          .isEqualTo(holders.size());
    }
    System.out.printf(
        "PciFlappingChaosIT: %d rounds in %d s, %d leases kept through the flapping%n",
        ROUNDS, Duration.between(started, Instant.now()).toSeconds(), holders.size());
  }

  private void awaitKubelet(String what, java.util.function.Predicate<List<DeviceState>> condition)
      throws InterruptedException {
    try {
      node.kubelet.awaitDevices(GPU, condition, CONVERGED_WITHIN);
    } catch (AssertionError e) {
      throw new AssertionError(what + ": " + e.getMessage(), e);
    }
  }

  private static boolean allEightHealthy(List<DeviceState> l) {
    return l.size() == 8 && l.stream().allMatch(DeviceState::healthy);
  }
}
