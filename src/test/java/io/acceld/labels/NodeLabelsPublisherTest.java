package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.Topology;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.TestDevices;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeLabelsPublisherTest {
  @TempDir Path dir;
  private final InventoryStore store = new InventoryStore();
  private final AtomicInteger computed = new AtomicInteger();
  private Optional<NodeLabelsPublisher> publisher = Optional.empty();

  /** The real labels, counting how often they are computed (one per turn of the publisher). */
  private final Function<Inventory, LabelSet> labels =
      inventory -> {
        LabelSet set =
            NodeLabels.of(new LabelInputs(inventory, MigStrategy.NONE, r -> SharingPolicy.NONE));
        computed.incrementAndGet();
        return set;
      };

  @AfterEach
  void stop() {
    publisher.ifPresent(NodeLabelsPublisher::close);
  }

  private static Inventory gpus(int count) {
    List<Device> devices =
        java.util.stream.IntStream.range(0, count).mapToObj(i -> TestDevices.nvidia(i, 0)).toList();
    return new Inventory(devices, NodeInfo.EMPTY, Topology.EMPTY);
  }

  private Path file() {
    return dir.resolve("features.d/acceld");
  }

  private String content() throws Exception {
    return Files.readString(file(), StandardCharsets.US_ASCII);
  }

  private NodeLabelsPublisher start() throws Exception {
    Files.createDirectories(file().getParent());
    publisher = NodeLabelsPublisher.start(Optional.of(file()), store, labels);
    return publisher.orElseThrow();
  }

  @Test
  void writesTheLabelsOfTheCurrentInventoryAtStartAndAgainWhenTheyChange() throws Exception {
    store.publish(gpus(2));
    NodeLabelsPublisher p = start();
    Eventually.await("the first write", () -> p.writes() == 1);
    assertThat(content()).contains("acceld.io/nvidia.com_gpu.count=2\n");
    assertThat(Files.getPosixFilePermissions(file()))
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));

    store.publish(gpus(3));
    Eventually.await("the rewrite", () -> p.writes() == 2);
    assertThat(content()).contains("acceld.io/nvidia.com_gpu.count=3\n");
    try (var listing = Files.list(file().getParent())) {
      assertThat(listing).as("no temporary file left").containsExactly(file());
    }
  }

  @Test
  void aChangeTheLabelsDoNotShowWritesNothing() throws Exception {
    Inventory healthy = gpus(2);
    store.publish(healthy);
    NodeLabelsPublisher p = start();
    Eventually.await("the first write", () -> p.writes() == 1);
    Object inode = Files.getAttribute(file(), "unix:ino");
    int before = computed.get();

    Device sick = healthy.devices().get(0).withHealth(Health.UNHEALTHY, Optional.of("XID 79"));
    store.publish(healthy.withDevices(List.of(sick)));
    Eventually.await("the labels of the changed inventory", () -> computed.get() > before);

    assertThat(p.writes()).isEqualTo(1);
    assertThat(Files.getAttribute(file(), "unix:ino")).isEqualTo(inode);
  }

  @Test
  void aRestartWithTheSameHardwareLeavesTheFileAloneAndAStopKeepsIt() throws Exception {
    store.publish(gpus(2));
    NodeLabelsPublisher first = start();
    Eventually.await("the first write", () -> first.writes() == 1);
    String written = content();
    Object inode = Files.getAttribute(file(), "unix:ino");
    first.close();
    assertThat(content()).as("kept on stop").isEqualTo(written);

    NodeLabelsPublisher second = start();
    Eventually.await("the restarted publisher's first turn", () -> computed.get() == 2);
    assertThat(second.writes()).isZero();
    assertThat(Files.getAttribute(file(), "unix:ino")).isEqualTo(inode);
  }

  @Test
  void aFileChangedBehindTheAgentsBackBeforeItStartsIsReplaced() throws Exception {
    Files.createDirectories(file().getParent());
    Files.writeString(file(), "nvidia.com/gpu.product=stale\n");
    store.publish(gpus(1));
    NodeLabelsPublisher p = start();
    Eventually.await("the rewrite", () -> p.writes() == 1);
    assertThat(content()).doesNotContain("stale").contains("acceld.io/nvidia.com_gpu.count=1");
  }

  @Test
  void nothingIsWrittenBeforeDiscoveryPublishedAnything() throws Exception {
    NodeLabelsPublisher p = start();
    Eventually.await("the first turn", () -> p.turns() == 1);
    assertThat(file()).doesNotExist();
    store.publish(gpus(1));
    Eventually.await("the write after the first inventory", () -> p.writes() == 1);
    assertThat(content()).contains("acceld.io/nvidia.com_gpu.count=1");
  }

  @Test
  void aMissingDirectoryTurnsLabelsOffWithOneInfoNamingIt() {
    try (LogCapture log = LogCapture.of(NodeLabelsPublisher.class)) {
      Path missing = dir.resolve("no-nfd/features.d/acceld");
      assertThat(NodeLabelsPublisher.start(Optional.of(missing), store, labels)).isEmpty();
      assertThat(log.infos()).singleElement().asString().contains(missing.getParent().toString());
    }
    assertThat(NodeLabelsPublisher.start(Optional.empty(), store, labels)).isEmpty();
  }

  @Test
  void aLabelNfdWouldRefuseIsOneWarnNamingItHoweverOftenItComesBack() throws Exception {
    String odd = "AMD Radeon Pro W7900/Dual Slot";
    Inventory amd =
        new Inventory(List.of(Nodes.amd(1, odd, 48L << 30)), NodeInfo.EMPTY, Topology.EMPTY);
    try (LogCapture log = LogCapture.of(NodeLabelsPublisher.class)) {
      store.publish(amd);
      NodeLabelsPublisher p = start();
      Eventually.await("the first write", () -> p.writes() == 1);
      Device sick = amd.devices().get(0).withHealth(Health.UNHEALTHY, Optional.of("gone"));
      store.publish(amd.withDevices(List.of(sick)));
      Eventually.await("the second turn", () -> computed.get() == 2);

      assertThat(
              log.warnings().stream()
                  .filter(w -> w.startsWith("Node label amd.com/gpu.product-name=")))
          .singleElement()
          .asString()
          .contains("AMD_Radeon_Pro_W7900/Dual_Slot")
          .contains("refuse");
      assertThat(content()).contains("amd.com/gpu.vram=48G").doesNotContain("product-name");
    }
  }

  @Test
  void aFileThatCannotBeWrittenIsAWarnAndTheAgentGoesOn() throws Exception {
    Files.createDirectories(file()); // a directory where the file should be: rename fails
    Files.writeString(file().resolve("x"), "x");
    store.publish(gpus(1));
    try (LogCapture log = LogCapture.of(NodeLabelsPublisher.class)) {
      NodeLabelsPublisher p = start();
      Eventually.await(
          "a WARN naming the file",
          () -> log.warnings().stream().anyMatch(w -> w.contains(file().toString())));
      assertThat(p.writes()).isZero();
    }
  }
}
