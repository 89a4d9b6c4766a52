package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.inventory.ReplicaId;
import io.acceld.testing.LogCapture;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.acceld.util.AtomicFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseCheckpointTest {
  @TempDir Path dir;
  final MutableClock clock = new MutableClock();
  final Instant since = Instant.parse("2026-12-01T10:00:00Z");

  List<Lease> leases() {
    return List.of(
        new Lease(
            ReplicaId.whole(TestDevices.uuid(0)),
            new Holder.KubeletPod("ml", "trainer", "worker"),
            since,
            "Allocate of nvidia.com/gpu"),
        new Lease(
            ReplicaId.of(TestDevices.uuid(1), 3),
            new Holder.KubeletPending("alloc-1-2"),
            since,
            "Allocate of nvidia.com/gpu.shared"),
        new Lease(
            ReplicaId.whole(TestDevices.uuid(2)),
            new Holder.MesosTask("fw \"1\"", "task\n7"),
            since,
            "offer O-3"));
  }

  LeaseCheckpoint written() throws Exception {
    LeaseCheckpoint checkpoint = new LeaseCheckpoint(dir);
    checkpoint.write(Availability.of(TestDevices.inventory(List.of()), leases()));
    return checkpoint;
  }

  @Test
  void everyHolderKindRoundTripsAndTheFileIsOwnerOnlyWhateverTheUmask() throws Exception {
    LeaseCheckpoint checkpoint = written();

    assertThat(checkpoint.read()).isEqualTo(leases());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(checkpoint.file())))
        .isEqualTo("rw-------");
  }

  @Test
  void noFileIsAFirstStart() throws Exception {
    assertThat(new LeaseCheckpoint(dir).read()).isEmpty();
  }

  @Test
  void anEmptyFileIsRefused() throws Exception {
    Files.write(dir.resolve(LeaseCheckpoint.FILE_NAME), new byte[0]);
    assertThatThrownBy(() -> new LeaseCheckpoint(dir).read()).hasMessage("is empty");
  }

  @Test
  void aTruncatedFileIsRefusedEvenWhereItsJsonStillParses() throws Exception {
    LeaseCheckpoint checkpoint = written();
    byte[] bytes = Files.readAllBytes(checkpoint.file());
    Files.write(checkpoint.file(), java.util.Arrays.copyOf(bytes, bytes.length - 10));
    assertThatThrownBy(checkpoint::read).hasMessageContaining("is truncated");

    Files.write(checkpoint.file(), java.util.Arrays.copyOf(bytes, 20));
    assertThatThrownBy(checkpoint::read).hasMessageContaining("header");
  }

  @Test
  void aFlippedByteIsCaughtByTheChecksum() throws Exception {
    LeaseCheckpoint checkpoint = written();
    byte[] bytes = Files.readAllBytes(checkpoint.file());
    int at = bytes.length - 30;
    bytes[at] = (byte) (bytes[at] == 'a' ? 'b' : 'a');
    Files.write(checkpoint.file(), bytes);
    assertThatThrownBy(checkpoint::read).hasMessageContaining("checksum does not match");
  }

  @Test
  void aNewerFormatIsRefusedRatherThanHalfUnderstood() throws Exception {
    LeaseCheckpoint checkpoint = written();
    String text = Files.readString(checkpoint.file(), StandardCharsets.UTF_8);
    Files.writeString(
        checkpoint.file(), text.replaceFirst("^acceld-ledger 1 ", "acceld-ledger 2 "));
    assertThatThrownBy(checkpoint::read)
        .hasMessage("was written by a newer acceld (format 2; this one reads 1)");
  }

  @Test
  void somethingElseAtThePathIsUnreadableNotACrash() throws Exception {
    Files.createDirectories(dir.resolve(LeaseCheckpoint.FILE_NAME));
    assertThatThrownBy(() -> new LeaseCheckpoint(dir).read())
        .hasMessageContaining("cannot be read");
  }

  @Test
  void aCrashBetweenWriteAndRenameLeavesThePreviousCheckpointIntact() throws Exception {
    LeaseCheckpoint checkpoint = written();
    // What a crash after writing the temporary file but before the rename leaves behind.
    Path leftover = dir.resolve("." + LeaseCheckpoint.FILE_NAME + ".123456.tmp");
    Files.writeString(leftover, "acceld-ledger 1 bytes=999 sha256=00\n{\"half");
    assertThat(AtomicFiles.isTemporary(leftover)).isTrue();

    assertThat(checkpoint.read()).isEqualTo(leases());
  }

  @Test
  void anUnusableCheckpointIsMovedAsideWithOneErrorAndTheLedgerStartsEmpty() throws Exception {
    Path file = dir.resolve(LeaseCheckpoint.FILE_NAME);
    Files.writeString(file, "not a checkpoint at all\n");
    try (LogCapture logs = LogCapture.of(LedgerStorage.class);
        LedgerStorage storage = LedgerStorage.open(dir, clock)) {
      assertThat(storage.ledger().current().leases()).isEmpty();
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains(file.toString())
          .contains("does not start with an 'acceld-ledger' header")
          .contains("moved it aside");
    }
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith(LeaseCheckpoint.FILE_NAME + ".unusable-"));
    }
  }

  @Test
  void theStateDirectoryIsCreatedOwnerOnly() throws Exception {
    Path state = dir.resolve("var/lib/acceld");
    try (LedgerStorage storage = LedgerStorage.open(state, clock)) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state)))
          .isEqualTo("rwx------");
    }
  }
}
