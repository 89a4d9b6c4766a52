package io.acceld.mesos.tasks;

import com.google.protobuf.InvalidProtocolBufferException;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.AtomicFiles;
import io.acceld.util.JsonSyntaxException;
import io.acceld.util.JsonTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task book's rows on disk, in a {@link TaskJournal} (snapshot plus group-committed journal) in
 * the tasks directory. A row is small JSON, one record per change, so an update writes one task and
 * not the whole table. Protobuf values are kept as base64 of their binary form, which round-trips
 * every field exactly (including ones this version does not know).
 *
 * <p>Changes are two steps: {@link #write} or {@link #delete} buffer the change (with the book's
 * lock held, so one task's changes keep their order) and return its sequence number; {@link #await}
 * returns once it is durable (without the book's lock, so a force serves every framework's changes
 * at once instead of one after another).
 *
 * <p>Before the journal, each row was its own file, {@code task-<digest>.json}; a node upgraded in
 * place still has those, so they are read when there is no snapshot yet, taken into the first
 * snapshot and then deleted.
 */
final class TaskCheckpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskCheckpoint.class);

  static final int FORMAT = 1;

  /** What a row holds, before it becomes an entry. */
  record Row(
      FrameworkInfo framework,
      TaskInfo task,
      ExecutorID executor,
      Optional<ExecutorInfo> executorInfo,
      List<String> deviceIds,
      TaskStatus latest,
      List<TaskStatus> pending) {}

  /**
   * Why writes fail, since when; null while they succeed. Read by {@code /healthz} from another
   * thread, so volatile.
   */
  record Failing(String problem, Instant since) {}

  private final Path dir;
  private final Clock clock;
  private final TaskJournal journal;
  private final List<Row> restored;
  private volatile Failing failing;

  private TaskCheckpoint(Path dir, Clock clock, TaskJournal.ForceHook hook, long compactBytes)
      throws IOException {
    this.dir = dir;
    this.clock = clock;
    this.journal = TaskJournal.open(dir, this::readLegacy, compactBytes, hook);
    IOException notWritten = journal.startupFailure();
    if (notWritten == null) {
      // The legacy rows are in the snapshot now (or were, in an earlier start that crashed before
      // this delete): the files go, so that they are never read over newer rows.
      for (Path f : legacyFiles(dir)) {
        Files.deleteIfExists(f);
      }
    } else {
      failing = new Failing(notWritten.toString(), clock.instant());
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, byte[]> row : journal.rows().entrySet()) {
      try {
        rows.add(decodeRow(row.getValue(), "row " + row.getKey() + " of " + dir));
      } catch (IOException e) {
        // Whole (its checksum held) but not a row this version reads: kept for a person, since
        // the next compaction leaves it out.
        Path aside = dir.resolve(row.getKey() + ".json.damaged");
        log.error("Skipped a task row in {}: {}; kept as {}", dir, e.getMessage(), aside);
        AtomicFiles.write(aside, row.getValue(), AtomicFiles.OWNER_ONLY);
        journal.append(row.getKey(), null); // carried by the next force
      }
    }
    this.restored = rows;
  }

  /** Opens the checkpoint in {@code dir}, recovering its rows ({@link #restored}). */
  static TaskCheckpoint open(Path dir, Clock clock) throws IOException {
    return new TaskCheckpoint(dir, clock, TaskJournal.ForceHook.NONE, TaskJournal.COMPACT_BYTES);
  }

  static TaskCheckpoint open(Path dir, Clock clock, TaskJournal.ForceHook hook, long compactBytes)
      throws IOException {
    return new TaskCheckpoint(dir, clock, hook, compactBytes);
  }

  /** The current run of failed writes, or empty when the last write succeeded. */
  Optional<Failing> failing() {
    return Optional.ofNullable(failing);
  }

  /** Every row found on disk when opened. */
  List<Row> restored() {
    return restored;
  }

  TaskJournal journal() {
    return journal;
  }

  /** The key of one task's row: a digest, as the framework and task IDs are client text. */
  static String keyOf(String frameworkId, String taskId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((frameworkId + "\n" + taskId).getBytes(StandardCharsets.UTF_8));
      return "task-" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  /** The file a task's row had before the journal (the key plus {@code .json}). */
  Path legacyFileOf(String frameworkId, String taskId) {
    return dir.resolve(keyOf(frameworkId, taskId) + ".json");
  }

  /**
   * Buffers the row of {@code e} as it is now; durable once {@link #await} of the returned number
   * returns. A row too large for a record is refused here, and is not a failure of the disk.
   */
  long write(TaskEntry e) throws IOException {
    return journal.append(keyOf(e), encodeRow(e));
  }

  /** Buffers the removal of the row of {@code e}; see {@link #write}. */
  long delete(TaskEntry e) throws IOException {
    return journal.append(keyOf(e), null);
  }

  /** Returns once change {@code seq} is on disk; a failure is what {@link #failing} reports. */
  void await(long seq) throws IOException {
    try {
      journal.await(seq);
      failing = null;
    } catch (IOException ex) {
      Failing was = failing;
      failing = new Failing(ex.toString(), was == null ? clock.instant() : was.since());
      throw ex;
    }
  }

  /** Whether change {@code seq} is on disk already. */
  boolean durable(long seq) {
    return journal.durable(seq);
  }

  @Override
  public void close() {
    journal.close();
  }

  private static String keyOf(TaskEntry e) {
    return keyOf(e.framework.getId().getValue(), e.task.getTaskId().getValue());
  }

  private static byte[] encodeRow(TaskEntry e) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("format", FORMAT);
    root.put("framework", encode(e.framework.toByteArray()));
    root.put("task", encode(e.task.toByteArray()));
    root.put("executor_id", e.executor.getValue());
    e.executorInfo.ifPresent(x -> root.put("executor_info", encode(x.toByteArray())));
    root.put("devices", List.copyOf(e.deviceIds));
    root.put("latest", encode(e.latest.toByteArray()));
    root.put("pending", e.pending.stream().map(s -> encode(s.toByteArray())).toList());
    return JsonTrees.render(root, false);
  }

  private static List<Path> legacyFiles(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files
          .filter(
              f -> {
                String name = f.getFileName().toString();
                return !AtomicFiles.isTemporary(f)
                    && name.startsWith("task-")
                    && name.endsWith(".json");
              })
          .sorted()
          .toList();
    }
  }

  /**
   * The rows of the format before the journal, keyed as the journal keys them (the file name less
   * {@code .json}). A file that cannot be read (damaged, or of a format this version does not know)
   * is logged, renamed to {@code <name>.damaged} for a person to look at, and skipped: one bad file
   * must not keep the bridge from starting, and the executor side still reports the task's process,
   * whose devices {@link TaskBook#afterRecovery} then keeps leased.
   */
  private Map<String, byte[]> readLegacy() {
    Map<String, byte[]> rows = new LinkedHashMap<>();
    try {
      for (Path file : legacyFiles(dir)) {
        String name = file.getFileName().toString();
        try {
          byte[] bytes = Files.readAllBytes(file);
          decodeRow(bytes, "the task checkpoint " + file);
          rows.put(name.substring(0, name.length() - ".json".length()), bytes);
        } catch (IOException e) {
          Path aside = file.resolveSibling(name + ".damaged");
          log.error("Skipped the task checkpoint {}: {}; kept as {}", file, e.getMessage(), aside);
          Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!rows.isEmpty()) {
      log.info("Moving {} task checkpoint file(s) in {} into the task journal", rows.size(), dir);
    }
    return rows;
  }

  private static Row decodeRow(byte[] bytes, String what) throws IOException {
    try {
      Map<?, ?> root;
      try {
        root = JsonTrees.parse(bytes) instanceof Map<?, ?> m ? m : Map.of();
      } catch (JsonSyntaxException e) {
        throw new IOException(what + " is not JSON", e);
      }
      if (!(root.get("format") instanceof Long format) || format != FORMAT) {
        throw new IOException("unknown task checkpoint format in " + what);
      }
      List<String> devices = new ArrayList<>();
      for (Object d : list(root, "devices")) {
        devices.add(text(d, "devices", what));
      }
      List<TaskStatus> pending = new ArrayList<>();
      for (Object s : list(root, "pending")) {
        pending.add(TaskStatus.parseFrom(decode(text(s, "pending", what))));
      }
      Object executorInfo = root.get("executor_info");
      return new Row(
          FrameworkInfo.parseFrom(decode(field(root, "framework", what))),
          TaskInfo.parseFrom(decode(field(root, "task", what))),
          ExecutorID.newBuilder().setValue(field(root, "executor_id", what)).build(),
          executorInfo == null
              ? Optional.empty()
              : Optional.of(
                  ExecutorInfo.parseFrom(decode(text(executorInfo, "executor_info", what)))),
          devices,
          TaskStatus.parseFrom(decode(field(root, "latest", what))),
          pending);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw new IOException(what + " is damaged: " + e.getMessage(), e);
    }
  }

  private static List<?> list(Map<?, ?> root, String key) {
    return root.get(key) instanceof List<?> l ? l : List.of();
  }

  private static String field(Map<?, ?> root, String key, String what) throws IOException {
    return text(root.get(key), key, what);
  }

  private static String text(Object value, String key, String what) throws IOException {
    if (value instanceof String s) {
      return s;
    }
    throw new IOException(what + " is damaged: '" + key + "' is not a string");
  }

  private static String encode(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static byte[] decode(String base64) {
    return Base64.getDecoder().decode(base64);
  }
}
