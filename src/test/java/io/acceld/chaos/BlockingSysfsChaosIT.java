package io.acceld.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.DeviceState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 (defect 5 under load): a sysfs attribute that blocks on read while the agent runs (a
 * FIFO stands in for a wedged driver attribute), on a different GPU each round. While a rediscovery
 * is stuck on it, {@code /healthz} fails naming the stuck loop, and the other GPUs are still
 * served: listed healthy to the kubelet and allocated within a second. The stuck read is then
 * abandoned at its deadline, {@code /healthz} passes again, and once the attribute answers it is
 * read again.
 */
class BlockingSysfsChaosIT {
  static final String GPU = ChaosNode.GPU;
  static final int ROUNDS = Integer.getInteger("acceld.blockingSysfsRounds", 3);
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  ChaosNode node;
  final List<Path> fifos = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (Path f : fifos) {
      if (Files.exists(f)) {
        unblock(f); // no reader thread left behind in open()
      }
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aBlockedReadFailsHealthzWhileTheOtherGpusAreServedAndHeals() throws Exception {
    ChaosSeed seed = ChaosSeed.of("BlockingSysfsChaosIT");
    Random random = seed.random();
    node =
        ChaosNode.start(
            root,
            Map.of(
                "rescan-interval", "300ms",
                "loop-stuck-after", "1s"));
    node.kubelet.awaitDevices(GPU, BlockingSysfsChaosIT::eightHealthy, WAIT);
    List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 6, 7));
    Collections.shuffle(order, random);
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      int wedged = order.get(2 * round);
      int other = order.get(2 * round + 1);
      String what = seed.tag("round " + round + " (GPU " + wedged + " wedged)");
      Path numa =
          node.node
              .tree()
              .sysfsRoot()
              .resolve("bus/pci/devices/" + node.node.gpus().get(wedged).pciAddress())
              .toRealPath()
              .resolve("numa_node");
      String before = Files.readString(numa);
      Files.delete(numa);
      Process mkfifo = new ProcessBuilder("mkfifo", numa.toString()).inheritIO().start();
      assertThat(mkfifo.waitFor()).isZero();
      fifos.add(numa);

      Eventually.await(
          what + ": /healthz fails naming the stuck discovery",
          WAIT,
          () ->
              node.get("/healthz")
                  .filter(r -> r.statusCode() == 503 && r.body().contains("stuck"))
                  .isPresent());
      // Meanwhile the other GPUs are served.
      long t0 = System.nanoTime();
      node.kubelet.allocateOne(GPU, List.of(node.uuid(other)));
      Duration allocate = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(allocate)
          .as(what + ": Allocate while discovery is stuck")
          .isLessThan(Waits.scaled(Duration.ofSeconds(1)));
      assertThat(node.kubelet.devices(GPU)).as(what).hasSize(8).allMatch(DeviceState::healthy);

      // The read is abandoned at its deadline: alive again, the GPU still listed, and /healthz
      // says which read blocks, for which device, since when.
      String degraded =
          "degraded: reading "
              + numa
              + " for "
              + node.node.gpus().get(wedged).pciAddress()
              + " timed out since ";
      Eventually.await(
          what + ": /healthz passes once the read is abandoned, naming the blocked read",
          WAIT,
          () ->
              node.get("/healthz")
                  .filter(r -> r.statusCode() == 200 && r.body().contains(degraded))
                  .isPresent());
      assertThat(node.kubelet.devices(GPU)).as(what).hasSize(8);

      // The attribute answers again: read again, nothing stuck.
      unblock(numa);
      Files.delete(numa);
      Files.writeString(numa, before);
      fifos.remove(numa);
      node.kubelet.awaitDevices(GPU, BlockingSysfsChaosIT::eightHealthy, WAIT);
      Eventually.await(
          what + ": healthy, and no longer degraded, after the attribute answers",
          WAIT,
          () ->
              node.get("/healthz")
                  .filter(r -> r.statusCode() == 200 && !r.body().contains("degraded"))
                  .isPresent());
    }
    System.out.printf(
        "BlockingSysfsChaosIT: %d wedged attributes in %d s%n",
        ROUNDS, Duration.between(started, Instant.now()).toSeconds());
  }

  private static boolean eightHealthy(List<DeviceState> l) {
    return l.size() == 8 && l.stream().allMatch(DeviceState::healthy);
  }

  /**
   * Opens the FIFO and closes it: a reader blocked in open() then reads end-of-file. Read and write
   * (O_RDWR) never blocks on Linux, with or without a reader.
   */
  private static void unblock(Path fifo) throws Exception {
    try (var channel =
        Files.newByteChannel(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      // opened: a writer appeared for the blocked reader
    }
  }
}
