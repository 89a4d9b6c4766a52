package io.acceld.mesos.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.acceld.mesos.containment.DeviceNode;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.util.AtomicFiles;
import io.acceld.util.ClientText;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The containers' checkpoint: one file per container, {@code <containerId>.json}, written with
 * {@link AtomicFiles} (owner-only, durable) before the container's task is reported running, and
 * removed once its last task's terminal status is recorded. Separate from the sandboxes, which the
 * tasks can write: a task must not be able to forge which pid the agent signals.
 *
 * <p>The protobuf values (FrameworkInfo, AgentInfo, ExecutorInfo, TaskInfo) are stored as their
 * base64 binary encoding, which round-trips exactly, unknown fields included. A custom executor's
 * API token is kept here too, so that an executor re-attached after a restart can still
 * authenticate: the file is owner-only, as the token is a secret.
 */
final class ContainerRecords {
  private static final Logger log = LoggerFactory.getLogger(ContainerRecords.class);
  static final int FORMAT = 1;
  private static final String SUFFIX = ".json";

  /** The container IDs the agent makes: UUIDs. Anything else in the directory is not ours. */
  private static final Pattern CONTAINER_ID = Pattern.compile("[0-9a-f-]{36}");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;

  ContainerRecords(Path dir) throws IOException {
    this.dir = AtomicFiles.createDirectories(dir, AtomicFiles.DIRECTORY_OWNER_ONLY);
  }

  void write(ContainerRecord record) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("container", record.containerId());
    root.put("framework", encode(record.framework()));
    root.put("agent", encode(record.agent()));
    record.executor().ifPresent(e -> root.put("executor", encode(e)));
    var tasks = root.putArray("tasks");
    record.tasks().forEach(t -> tasks.add(encode(t)));
    var reported = root.putArray("reported");
    record.reported().forEach(reported::add);
    root.put("pid", record.pid());
    root.put("start_time", record.startTime().toString());
    root.put("sandbox", record.sandbox().toString());
    record.token().ifPresent(t -> root.put("executor_token", t.value()));
    record
        .denied()
        .ifPresent(
            denied -> {
              var nodes = root.putArray("denied_devices");
              denied.forEach(node -> put(nodes, node));
            });
    if (!record.taskDevices().isEmpty()) {
      var byTask = root.putObject("task_devices");
      record
          .taskDevices()
          .forEach(
              (task, nodes) -> {
                var list = byTask.putArray(task);
                nodes.forEach(node -> put(list, node));
              });
    }
    AtomicFiles.write(
        file(record.containerId()), JSON.writeValueAsBytes(root), AtomicFiles.OWNER_ONLY);
  }

  private static void put(ArrayNode nodes, DeviceNode node) {
    nodes
        .addObject()
        .put("path", node.path().toString())
        .put("major", node.major())
        .put("minor", node.minor());
  }

  void delete(String containerId) throws IOException {
    Files.deleteIfExists(file(containerId));
  }

  /**
   * Every record in the directory. One that cannot be read is moved aside ({@code .unusable}) and
   * logged, and the rest are still recovered: one bad file must not keep every other task from
   * being re-attached.
   */
  List<ContainerRecord> readAll() throws IOException {
    List<ContainerRecord> records = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
      for (Path file : files) {
        if (AtomicFiles.isTemporary(file)) {
          continue;
        }
        try {
          records.add(read(file));
        } catch (IOException | RuntimeException e) {
          Path aside = file.resolveSibling(file.getFileName() + ".unusable");
          log.error(
              "Container record {} is unusable ({}); moved to {}",
              file,
              ClientText.quote(e.toString()),
              aside);
          Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return records;
  }

  private ContainerRecord read(Path file) throws IOException {
    JsonNode root = JSON.readTree(Files.readAllBytes(file));
    int format = root.path("format").asInt(-1);
    if (format != FORMAT) {
      throw new IOException("format " + format + ", this agent reads " + FORMAT);
    }
    String id = text(root, "container");
    if (!CONTAINER_ID.matcher(id).matches() || !file.getFileName().toString().equals(id + SUFFIX)) {
      throw new IOException("container ID " + id + " does not match the file name");
    }
    List<TaskInfo> tasks = new ArrayList<>();
    for (JsonNode t : root.path("tasks")) {
      tasks.add(TaskInfo.parseFrom(decode(t.asText())));
    }
    Set<String> reported = new HashSet<>();
    for (JsonNode r : root.path("reported")) {
      reported.add(r.asText());
    }
    Optional<ExecutorInfo> executor =
        root.has("executor")
            ? Optional.of(ExecutorInfo.parseFrom(decode(text(root, "executor"))))
            : Optional.empty();
    return new ContainerRecord(
        id,
        FrameworkInfo.parseFrom(decode(text(root, "framework"))),
        AgentInfo.parseFrom(decode(text(root, "agent"))),
        executor,
        tasks,
        reported,
        root.path("pid").asLong(-1),
        Instant.parse(text(root, "start_time")),
        Path.of(text(root, "sandbox")),
        root.has("executor_token")
            ? Optional.of(ExecutorToken.of(text(root, "executor_token")))
            : Optional.empty(),
        root.has("denied_devices")
            ? Optional.of(nodes(root.path("denied_devices"), "denied_devices"))
            : Optional.empty(),
        taskDevices(root.path("task_devices")));
  }

  /** Absent in records of older agents and of command tasks: no task's devices are known. */
  private static Map<String, List<DeviceNode>> taskDevices(JsonNode byTask) throws IOException {
    Map<String, List<DeviceNode>> devices = new HashMap<>();
    for (var entry : (Iterable<Map.Entry<String, JsonNode>>) byTask::fields) {
      devices.put(entry.getKey(), nodes(entry.getValue(), "task_devices"));
    }
    return devices;
  }

  private static List<DeviceNode> nodes(JsonNode list, String key) throws IOException {
    List<DeviceNode> nodes = new ArrayList<>();
    for (JsonNode n : list) {
      if (!n.path("major").isInt() || !n.path("minor").isInt()) {
        throw new IOException("'" + key + "' holds a node without its numbers: " + n);
      }
      nodes.add(
          new DeviceNode(Path.of(text(n, "path")), n.get("major").asInt(), n.get("minor").asInt()));
    }
    return nodes;
  }

  private Path file(String containerId) {
    return dir.resolve(containerId + SUFFIX);
  }

  private static String text(JsonNode root, String key) throws IOException {
    JsonNode v = root.get(key);
    if (v == null || !v.isTextual()) {
      throw new IOException("'" + key + "' is missing or not a string");
    }
    return v.asText();
  }

  private static String encode(MessageLite message) {
    return Base64.getEncoder().encodeToString(message.toByteArray());
  }

  private static byte[] decode(String base64) throws InvalidProtocolBufferException {
    try {
      return Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new InvalidProtocolBufferException("not base64: " + e.getMessage());
    }
  }
}
