package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint on a state directory that fills up or turns read-only: a real small tmpfs mounted
 * for the test (the agent's CI runs as root; elsewhere the test is skipped, and under CI it fails,
 * so the check cannot silently vanish).
 */
class CheckpointDiskIT {
  @TempDir Path dir;
  Path state;
  boolean mounted;
  final MutableClock clock = new MutableClock();
  final Inventory inventory =
      TestDevices.inventory(
          List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0), TestDevices.nvidia(2, 0)));

  @BeforeEach
  void mount() throws Exception {
    state = Files.createDirectories(dir.resolve("state"));
    mounted = run("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", state.toString());
    if (!mounted) {
      if (System.getenv("CI") != null) {
        fail("cannot mount a tmpfs for the disk-full test; CI runs as root and must be able to");
      }
      assumeTrue(false, "needs root to mount a small tmpfs");
    }
  }

  @AfterEach
  void unmount() throws Exception {
    if (mounted) {
      run("umount", "-l", state.toString());
    }
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  private Path fillDisk() throws IOException {
    Path filler = state.resolve("filler");
    try (OutputStream out = Files.newOutputStream(filler)) {
      byte[] block = new byte[1024];
      while (true) {
        out.write(block);
        out.flush();
      }
    } catch (IOException full) {
      // the disk is full now
    }
    return filler;
  }

  @Test
  void aFullDiskKeepsLeasesInMemoryLogsOnceAndLosesNothingOnceSpaceReturns() throws Exception {
    Path filler = fillDisk();
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
    Path filler = fillDisk();
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
      assertThat(took).isLessThan(Duration.ofSeconds(3));
      Files.delete(filler);
      assertThat(ledger.awaitPersisted(version, Duration.ofSeconds(15))).isTrue();
    }
  }

  @Test
  void aReadOnlyStateDirectoryIsSurvivedAndRecoveredFrom() throws Exception {
    assertThat(run("mount", "-o", "remount,ro", state.toString())).isTrue();
    try (LedgerStorage storage = LedgerStorage.open(state, clock)) {
      DeviceLedger ledger = storage.ledger();
      ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
      ledger.lease(
          new Holder.KubeletPending("a-1"), List.of(ReplicaId.whole(TestDevices.uuid(2))), "x");
      Eventually.await("the write fails", () -> !storage.writer().status().ok());
      assertThat(storage.writer().status().problem().orElseThrow()).contains("Read-only");

      assertThat(run("mount", "-o", "remount,rw", state.toString())).isTrue();
      Eventually.await(
          "written again", Duration.ofSeconds(15), () -> storage.writer().status().ok());
      assertThat(new LeaseCheckpoint(state).read()).hasSize(1);
    }
  }
}
