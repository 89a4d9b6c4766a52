package io.acceld.mesos.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskJournalTest {
  @TempDir Path dir;
  final List<TaskJournal> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(TaskJournal::close);
  }

  TaskJournal open() throws IOException {
    return open(TaskJournal.COMPACT_BYTES, TaskJournal.ForceHook.NONE);
  }

  TaskJournal open(long compactBytes, TaskJournal.ForceHook hook) throws IOException {
    TaskJournal j = TaskJournal.open(dir, Map::of, compactBytes, hook);
    opened.add(j);
    return j;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Map<String, String> text(Map<String, byte[]> rows) {
    Map<String, String> out = new LinkedHashMap<>();
    rows.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  void put(TaskJournal j, String key, String value) throws IOException {
    j.await(j.append(key, bytes(value)));
  }

  @Test
  void writersThatArriveDuringAForceShareTheNextOne() throws Exception {
    HeldForce held = new HeldForce();
    TaskJournal j = open(TaskJournal.COMPACT_BYTES, held);
    long before = j.forces();
    held.arm();
    ExecutorService pool = Executors.newFixedThreadPool(9);
    try {
      List<Future<?>> done = new ArrayList<>();
      done.add(
          pool.submit(
              () -> {
                put(j, "leader", "v");
                return null;
              }));
      assertThat(held.awaitHeld()).isTrue();
      for (int i = 0; i < 8; i++) {
        String key = "follower-" + i;
        done.add(
            pool.submit(
                () -> {
                  put(j, key, "v");
                  return null;
                }));
      }
      // Every follower's record is buffered behind the force in flight.
      Eventually.await("eight records behind the first", () -> j.appended() == 9);
      held.release();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(j.forces() - before).as("the leader's force, then one for all eight").isEqualTo(2);
    j.close();
    assertThat(open().rows()).hasSize(9);
  }

  @Test
  void whatAwaitReturnedForSurvivesAReopenInOrder() throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    put(j, "b", "1");
    put(j, "a", "2");
    j.await(j.append("b", null));
    put(j, "c", "1");
    j.close();

    assertThat(text(open().rows())).containsExactly(Map.entry("a", "2"), Map.entry("c", "1"));
  }

  @Test
  void aJournalWrittenUnderALocaleWithItsOwnDigitsIsFoundOnReopen() throws Exception {
    Locale before = Locale.getDefault();
    Locale.setDefault(new Locale("ar", "EG"));
    try {
      TaskJournal j = open();
      put(j, "task", "running");
      j.close();

      assertThat(text(open().rows())).containsExactly(Map.entry("task", "running"));
      try (var files = Files.list(dir)) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .allSatisfy(name -> assertThat(name).matches("[\\x20-\\x7e]+"));
      }
    } finally {
      Locale.setDefault(before);
    }
  }

  @Test
  void aTornTailIsDroppedAndTheRecordsBeforeItKept() throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    put(j, "b", "1");
    Path file = j.journalFile();
    j.close();
    long size = Files.size(file);
    // A crash in the middle of the last append: its end never reached the disk.
    try (var ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size - 3);
    }
    // ... and a block of zeros past it, as a file extended before its data was written leaves.
    Files.write(file, new byte[4096], StandardOpenOption.APPEND);

    TaskJournal again = open();

    assertThat(text(again.rows())).containsExactly(Map.entry("a", "1"));
    assertThat(damagedFiles())
        .as("a torn tail is expected after a crash: nothing set aside")
        .isEmpty();
    // A fresh journal: what is appended now is not behind the torn bytes.
    put(again, "c", "1");
    again.close();
    assertThat(text(open().rows())).containsOnlyKeys("a", "c");
  }

  @Test
  void aChecksumMismatchInTheMiddleIsSetAsideAndTheRecordsAfterItKept() throws Exception {
    TaskJournal j = open();
    put(j, "a", "first");
    put(j, "b", "second");
    put(j, "c", "third");
    Path file = j.journalFile();
    j.close();
    byte[] content = Files.readAllBytes(file);
    int at = JournalBytes.indexOf(content, bytes("second"));
    content[at] ^= 0x01;
    Files.write(file, content);

    TaskJournal again = open();

    assertThat(text(again.rows()))
        .containsExactly(Map.entry("a", "first"), Map.entry("c", "third"));
    assertThat(damagedFiles())
        .containsExactly(file.resolveSibling(file.getFileName() + ".damaged"));
  }

  @Test
  void aChecksumMismatchInTheLastRecordIsATornTail() throws Exception {
    TaskJournal j = open();
    put(j, "a", "first");
    put(j, "b", "second");
    Path file = j.journalFile();
    j.close();
    byte[] content = Files.readAllBytes(file);
    content[JournalBytes.indexOf(content, bytes("second"))] ^= 0x01;
    Files.write(file, content);

    assertThat(text(open().rows())).containsExactly(Map.entry("a", "first"));
    assertThat(damagedFiles()).isEmpty();
  }

  @Test
  void aJournalLongerThanTheBoundIsCompactedAndStaysShort() throws Exception {
    TaskJournal j = open(512, TaskJournal.ForceHook.NONE);
    for (int i = 0; i < 200; i++) {
      put(j, "k" + (i % 5), "value-" + i);
    }
    assertThat(Files.size(j.journalFile())).isLessThan(512 + 100);
    assertThat(journals()).hasSize(1);
    j.close();

    Map<String, String> rows = text(open().rows());
    assertThat(rows).hasSize(5).containsEntry("k4", "value-199").containsEntry("k0", "value-195");
  }

  @Test
  void aCrashBetweenTheSnapshotAndTheOldJournalsDeletionReplaysNothingOld() throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    put(j, "b", "1");
    j.await(j.append("a", null));
    Path old = j.journalFile();
    Path copy = dir.getParent().resolve(dir.getFileName() + "-old-journal");
    Files.copy(old, copy, StandardCopyOption.REPLACE_EXISTING);
    j.close();
    // Opening compacts: snapshot of {b}, a new journal, the old one deleted ...
    TaskJournal second = open();
    put(second, "b", "2");
    second.close();
    // ... but the crash came before the delete reached the disk.
    Files.copy(copy, old);

    TaskJournal third = open();

    assertThat(text(third.rows()))
        .as("the old journal's put of a, deleted since, must not come back")
        .containsExactly(Map.entry("b", "2"));
    assertThat(Files.exists(old)).isFalse();
  }

  @Test
  void aCrashBeforeTheSnapshotLeavesTheOldGenerationInForce() throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    Path current = j.journalFile();
    j.close();
    // The next generation's journal was made, the snapshot naming it never written.
    String name = current.getFileName().toString();
    long gen = Long.parseLong(name.substring("journal-".length(), name.length() - ".log".length()));
    Files.createFile(dir.resolve(String.format("journal-%016d.log", gen + 1)));

    assertThat(text(open().rows())).containsExactly(Map.entry("a", "1"));
  }

  @Test
  void aFailedForceFailsItsWritersAndTheNextChangeStartsAFreshJournal() throws Exception {
    AtomicInteger failures = new AtomicInteger();
    TaskJournal j =
        open(
            TaskJournal.COMPACT_BYTES,
            () -> {
              if (failures.getAndDecrement() > 0) {
                throw new IOException("No space left on device");
              }
            });
    put(j, "a", "1");
    Path first = j.journalFile();
    failures.set(1);
    long seq = j.append("b", bytes("1"));

    assertThatThrownBy(() -> j.await(seq)).hasMessageContaining("No space left");

    put(j, "c", "1");
    assertThat(j.journalFile()).isNotEqualTo(first);
    j.close();
    // b was never acknowledged, but nothing was undone either: it is in the compaction.
    assertThat(text(open().rows())).containsOnlyKeys("a", "b", "c");
  }

  @Test
  void aDiskThatCannotBeWrittenAtOpenStillGivesTheRowsAndTheNextChangeWritesThem()
      throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    j.close();
    AtomicBoolean full = new AtomicBoolean(true);
    TaskJournal again =
        open(
            TaskJournal.COMPACT_BYTES,
            () -> {
              if (full.get()) {
                throw new IOException("No space left on device");
              }
            });

    assertThat(text(again.rows())).containsExactly(Map.entry("a", "1"));
    assertThat(again.startupFailure()).hasMessageContaining("No space left");
    long seq = again.append("b", bytes("1"));
    assertThatThrownBy(() -> again.await(seq)).hasMessageContaining("No space left");

    full.set(false);
    put(again, "c", "1");
    again.close();
    assertThat(text(open().rows())).containsOnlyKeys("a", "b", "c");
  }

  @Test
  void aRecordOverTheBoundIsRefusedClearlyAndTheJournalKeepsWorking() throws Exception {
    TaskJournal j = open();

    assertThatThrownBy(() -> j.append("big", new byte[TaskJournal.MAX_RECORD]))
        .isInstanceOf(TaskJournal.RecordTooLargeException.class)
        .hasMessageContaining("more than the " + TaskJournal.MAX_RECORD);

    put(j, "small", "1");
    j.close();
    assertThat(text(open().rows())).containsOnlyKeys("small");
  }

  @Test
  void everyFileIsOnlyTheOwners() throws Exception {
    TaskJournal j = open();
    put(j, "a", "1");
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        assertThat(
                java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(f)))
            .as(f.toString())
            .isEqualTo("rw-------");
      }
    }
  }

  private List<Path> damagedFiles() throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".damaged")).toList();
    }
  }

  private List<Path> journals() throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("journal-")).toList();
    }
  }
}
