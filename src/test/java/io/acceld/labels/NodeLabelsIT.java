package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.config.MigLayout;
import io.acceld.nvml.NvmlEventType;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature file through the real daemon on the MIG fixture node, the NVML double re-partitioning
 * a GPU at run time as an operator's {@code nvidia-smi mig} would.
 */
class NodeLabelsIT {
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  NvmlDouble nvml;
  KubeletDouble kubelet;
  Map<String, String> flags;
  AgentDaemon daemon;

  @AfterEach
  void close() throws Exception {
    if (daemon != null) {
      daemon.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  private Path start(String layout, Map<String, String> more) throws Exception {
    FixtureNode node = Fixtures.node(root.resolve("node"), 8, MigLayout.parse(layout));
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    flags = DaemonFlags.onFixture(root, node, nvml, kubelet);
    flags.put("mig-strategy", "mixed");
    flags.put("rescan-interval", "1s");
    flags.putAll(more);
    Path file = root.resolve("features.d/acceld");
    Files.createDirectories(file.getParent());
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    return file;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Object inode(Path file) throws IOException {
    return Files.getAttribute(file, "unix:ino");
  }

  @Test
  void aRepartitionRewritesTheFileOnceAtomicallyAndAHealthChangeDoesNot() throws Exception {
    Path file = start("0=1g.10gb*7", Map.of());
    NodeLabelsPublisher labels = daemon.nodeLabels().orElseThrow();
    Eventually.await(
        "the MIG devices' labels",
        WAIT,
        () -> Files.exists(file) && read(file).contains("nvidia.com/mig-1g.10gb.count=7\n"));
    String before = read(file);
    Object inodeBefore = inode(file);
    long writes = labels.writes();

    // Another process reading the file as fast as it can while it is replaced.
    Set<String> seen = ConcurrentHashMap.newKeySet();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> readerFailed = new AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                while (!stop.get()) {
                  seen.add(read(file));
                }
              } catch (RuntimeException e) {
                readerFailed.set(e);
              }
            },
            "feature-file-reader");
    reader.start();
    try {
      nvml.appendControl("mig 0 3g.40gb 2g.20gb 2g.20gb");
      Eventually.await(
          "the new layout's labels",
          WAIT,
          () -> read(file).contains("nvidia.com/mig-3g.40gb.count=1\n"));
      Eventually.await("the reader to see the new file", WAIT, () -> seen.size() >= 2);
    } finally {
      stop.set(true);
      reader.join();
    }
    String after = read(file);

    assertThat(after)
        .contains("nvidia.com/mig-2g.20gb.count=2\n", "acceld.io/nvidia.com_mig-2g.20gb.count=2\n")
        .doesNotContain("1g.10gb");
    assertThat(labels.writes()).as("one rewrite").isEqualTo(writes + 1);
    assertThat(inode(file)).as("a new file renamed over the old").isNotEqualTo(inodeBefore);
    assertThat(readerFailed.get()).isNull();
    assertThat(seen).as("never a partial file").containsExactlyInAnyOrder(before, after);
    assertThat(NfdFeatureFiles.read(after.getBytes(StandardCharsets.US_ASCII)).refused()).isEmpty();

    // A GPU turning unhealthy changes the inventory but not its labels: no write.
    Object inodeAfter = inode(file);
    long turns = labels.turns();
    assertThat(nvml.control().acceld_fake_inject_event(2, NvmlEventType.XID_CRITICAL_ERROR, 48))
        .isPositive();
    kubelet.awaitDevices("nvidia.com/gpu", l -> l.stream().anyMatch(d -> !d.healthy()), WAIT);
    Eventually.await("the labels of the changed inventory", WAIT, () -> labels.turns() > turns);
    assertThat(labels.writes()).isEqualTo(writes + 1);
    assertThat(inode(file)).isEqualTo(inodeAfter);

    // An orderly stop leaves the labels to the next start.
    daemon.close();
    daemon = null;
    assertThat(read(file)).isEqualTo(after);
  }

  @Test
  void aRestartOnTheSameHardwareLeavesTheFileAlone() throws Exception {
    Path file = start("0=1g.10gb*7", Map.of());
    Eventually.await("the labels", WAIT, () -> daemon.nodeLabels().orElseThrow().writes() == 1);
    Object inode = inode(file);
    String written = read(file);
    daemon.close();
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    NodeLabelsPublisher labels = daemon.nodeLabels().orElseThrow();
    Eventually.await("the restarted agent's first look", WAIT, () -> labels.turns() >= 1);
    assertThat(labels.writes()).isZero();
    assertThat(inode(file)).isEqualTo(inode);
    assertThat(read(file)).isEqualTo(written);
  }
}
