package io.acceld.mesos.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.AtomicFiles;
import java.io.IOException;
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
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's row on disk: a small JSON file per task, so an update rewrites one task and not the
 * whole table. Protobuf values are kept as base64 of their binary form, which round-trips every
 * field exactly (including ones this version does not know).
 */
final class TaskCheckpoint {
  private static final Logger log = LoggerFactory.getLogger(TaskCheckpoint.class);

  static final int FORMAT = 1;

  /** What a file holds, before it becomes an entry. */
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
   * thread, so volatile; written with the book's lock held.
   */
  record Failing(String problem, Instant since) {}

  private final Path dir;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();
  private volatile Failing failing;

  TaskCheckpoint(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  /** The current run of failed writes, or empty when the last write or delete succeeded. */
  Optional<Failing> failing() {
    return Optional.ofNullable(failing);
  }

  private void succeeded() {
    failing = null;
  }

  private IOException failed(IOException e) {
    Failing was = failing;
    failing = new Failing(e.toString(), was == null ? clock.instant() : was.since());
    return e;
  }

  /**
   * The file of one task. Named by a digest of the framework and task IDs: they are client text of
   * any length and alphabet, so they never become a file name themselves.
   */
  Path fileOf(String frameworkId, String taskId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((frameworkId + "\n" + taskId).getBytes(StandardCharsets.UTF_8));
      return dir.resolve("task-" + HexFormat.of().formatHex(digest, 0, 16) + ".json");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  void write(TaskEntry e) throws IOException {
    try {
      writeFile(e);
      succeeded();
    } catch (IOException ex) {
      throw failed(ex);
    }
  }

  private void writeFile(TaskEntry e) throws IOException {
    ObjectNode root = json.createObjectNode();
    root.put("format", FORMAT);
    root.put("framework", encode(e.framework.toByteArray()));
    root.put("task", encode(e.task.toByteArray()));
    root.put("executor_id", e.executor.getValue());
    e.executorInfo.ifPresent(x -> root.put("executor_info", encode(x.toByteArray())));
    ArrayNode devices = root.putArray("devices");
    e.deviceIds.forEach(devices::add);
    root.put("latest", encode(e.latest.toByteArray()));
    ArrayNode pending = root.putArray("pending");
    e.pending.forEach(s -> pending.add(encode(s.toByteArray())));
    AtomicFiles.write(
        fileOf(e.framework.getId().getValue(), e.task.getTaskId().getValue()),
        json.writeValueAsBytes(root),
        AtomicFiles.OWNER_ONLY);
  }

  void delete(TaskEntry e) throws IOException {
    try {
      Files.deleteIfExists(fileOf(e.framework.getId().getValue(), e.task.getTaskId().getValue()));
      succeeded();
    } catch (IOException ex) {
      throw failed(ex);
    }
  }

  /**
   * Every row in the directory. A file that cannot be read (damaged, or of a format this version
   * does not know) is logged, renamed to {@code <name>.damaged} for a person to look at, and
   * skipped: one bad file must not keep the bridge from starting, and the executor side still
   * reports the task's process, whose devices {@link TaskBook#afterRecovery} then keeps leased.
   */
  List<Row> readAll() throws IOException {
    List<Row> rows = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path file : files.sorted().toList()) {
        String name = file.getFileName().toString();
        if (AtomicFiles.isTemporary(file) || !name.startsWith("task-") || !name.endsWith(".json")) {
          continue;
        }
        try {
          rows.add(read(file));
        } catch (IOException e) {
          Path aside = file.resolveSibling(name + ".damaged");
          log.error("Skipped the task checkpoint {}: {}; kept as {}", file, e.getMessage(), aside);
          Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return rows;
  }

  private Row read(Path file) throws IOException {
    try {
      JsonNode root;
      try {
        root = json.readTree(file.toFile());
      } catch (com.fasterxml.jackson.core.JacksonException e) {
        throw new IOException("it is not JSON", e);
      }
      if (root == null || root.path("format").asInt() != FORMAT) {
        throw new IOException("unknown task checkpoint format in " + file);
      }
      List<String> devices = new ArrayList<>();
      root.path("devices").forEach(d -> devices.add(d.asText()));
      List<TaskStatus> pending = new ArrayList<>();
      for (JsonNode s : root.path("pending")) {
        pending.add(TaskStatus.parseFrom(decode(s)));
      }
      return new Row(
          FrameworkInfo.parseFrom(decode(root.path("framework"))),
          TaskInfo.parseFrom(decode(root.path("task"))),
          ExecutorID.newBuilder().setValue(root.path("executor_id").asText()).build(),
          root.hasNonNull("executor_info")
              ? Optional.of(ExecutorInfo.parseFrom(decode(root.path("executor_info"))))
              : Optional.empty(),
          devices,
          TaskStatus.parseFrom(decode(root.path("latest"))),
          pending);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw new IOException("the task checkpoint " + file + " is damaged: " + e.getMessage(), e);
    }
  }

  private static String encode(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static byte[] decode(JsonNode node) {
    return Base64.getDecoder().decode(node.asText());
  }
}
