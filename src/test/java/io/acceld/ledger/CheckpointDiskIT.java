package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.MutableClock;
import io.acceld.testing.SmallTmpfs;
import io.acceld.testing.TestDevices;
import io.acceld.testing.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint on a state directory that fills up or turns read-only: a real small tmpfs mounted
 * for the test ({@link SmallTmpfs}).
 */
class CheckpointDiskIT {
  @TempDir Path dir;
  SmallTmpfs disk;
  Path state;
  final MutableClock clock = new MutableClock();
  final Inventory inventory =
      TestDevices.inventory(
          List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0), TestDevices.nvidia(2, 0)));

  @BeforeEach
  void mount() throws Exception {
    disk = SmallTmpfs.mount(dir.resolve("state"), "64k");
    state = disk.dir();
  }

  @AfterEach
  void unmount() throws Exception {
    if (disk != null) {
      disk.close();
    }
  }

  @Test
  void aFullDiskKeepsLeasesInMemoryLogsOnceAndLosesNothingOnceSpaceReturns() throws Exception {
    Path filler = disk.fill();
    try (LogCapture logs = LogCapture.of(CheckpointWriter.class);
        LedgerStorage storage = LedgerStorage.open(state, clock)) {
      DeviceLedger ledger = storage.ledger();
      ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
      Holder task = new Holder.MesosTask("fw", "t1");
      assertThat(ledger.lease(task, List.of(ReplicaId.whole(TestDevices.uuid(0))), "o").granted())
          .isTrue();

      Eventually.await("the write fails", () -> !storage.writer().status().ok());
      assertThat(storage.writer().status().problem().orElseThrow()).contains("No space left");
      // More changes while full: still served from memory, still one ERROR.
      ledger.lease(
          new Holder.MesosTask("fw", "t2"), List.of(ReplicaId.whole(TestDevices.uuid(1))), "o");
      Eventually.await("a retry", () -> storage.writer().failures() >= 2);
      assertThat(ledger.current().leases()).hasSize(2);
      assertThat(logs.warnings()).singleElement().asString().contains("No space left");

      Files.delete(filler);
      Eventually.await(
          "written once space returns",
          Duration.ofSeconds(15),
          () -> storage.writer().status().ok());
      assertThat(new LeaseCheckpoint(state).read())
          .extracting(l -> l.holder().name())
          .containsExactly("fw/t1", "fw/t2");
    }
  }

  @Test
  void aWaiterForDurabilityOnAFullDiskIsToldAtOnceNotAtItsTimeout() throws Exception {
    Path filler = disk.fill();
    try (LedgerStorage storage = LedgerStorage.open(state, clock)) {
      DeviceLedger ledger = storage.ledger();
      ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
      ledger.lease(
          new Holder.MesosTask("fw", "t1"), List.of(ReplicaId.whole(TestDevices.uuid(0))), "o");
      Eventually.await("the write fails", () -> !storage.writer().status().ok());

      // As the Mesos bridge waits before it acknowledges a launch: with a full disk the answer
      // came only at the 10 s timeout, so each launch stalled its framework for 10 s.
      long version = ledger.current().version();
      long start = System.nanoTime();
      boolean durable = ledger.awaitPersisted(version, Duration.ofSeconds(10));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(durable).isFalse();
      assertThat(took).isLessThan(Waits.scaled(Duration.ofSeconds(3))); // not the 10 s timeout
      Files.delete(filler);
      assertThat(ledger.awaitPersisted(version, Duration.ofSeconds(15))).isTrue();
    }
  }

  @Test
  void aReadOnlyStateDirectoryIsSurvivedAndRecoveredFrom() throws Exception {
    assertThat(disk.readOnly(true)).isTrue();
    try (LedgerStorage storage = LedgerStorage.open(state, clock)) {
      DeviceLedger ledger = storage.ledger();
      ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
      ledger.lease(
          new Holder.KubeletPending("a-1"), List.of(ReplicaId.whole(TestDevices.uuid(2))), "x");
      Eventually.await("the write fails", () -> !storage.writer().status().ok());
      assertThat(storage.writer().status().problem().orElseThrow()).contains("Read-only");

      assertThat(disk.readOnly(false)).isTrue();
      Eventually.await(
          "written again", Duration.ofSeconds(15), () -> storage.writer().status().ok());
      assertThat(new LeaseCheckpoint(state).read()).hasSize(1);
    }
  }
}
