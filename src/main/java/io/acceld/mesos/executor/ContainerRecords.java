package io.acceld.mesos.executor;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.acceld.mesos.containment.DeviceNode;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.util.AtomicFiles;
import io.acceld.util.ClientText;
import io.acceld.util.JsonTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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

  private final Path dir;

  ContainerRecords(Path dir) throws IOException {
    this.dir = AtomicFiles.createDirectories(dir, AtomicFiles.DIRECTORY_OWNER_ONLY);
  }

  void write(ContainerRecord record) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("format", FORMAT);
    root.put("container", record.containerId());
    root.put("framework", encode(record.framework()));
    root.put("agent", encode(record.agent()));
    record.executor().ifPresent(e -> root.put("executor", encode(e)));
    root.put("tasks", record.tasks().stream().map(ContainerRecords::encode).toList());
    root.put("reported", List.copyOf(record.reported()));
    root.put("pid", record.pid());
    root.put("start_time", record.startTime().toString());
    root.put("sandbox", record.sandbox().toString());
    record.token().ifPresent(t -> root.put("executor_token", t.value()));
    record.denied().ifPresent(denied -> root.put("denied_devices", nodes(denied)));
    if (!record.taskDevices().isEmpty()) {
      Map<String, Object> byTask = new LinkedHashMap<>();
      record.taskDevices().forEach((task, nodes) -> byTask.put(task, nodes(nodes)));
      root.put("task_devices", byTask);
    }
    AtomicFiles.write(
        file(record.containerId()), JsonTrees.render(root, false), AtomicFiles.OWNER_ONLY);
  }

  private static List<Object> nodes(List<DeviceNode> nodes) {
    List<Object> list = new ArrayList<>();
    for (DeviceNode node : nodes) {
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("path", node.path().toString());
      n.put("major", node.major());
      n.put("minor", node.minor());
      list.add(n);
    }
    return list;
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
    Map<?, ?> root =
        JsonTrees.parse(Files.readAllBytes(file)) instanceof Map<?, ?> m ? m : Map.of();
    long format = root.get("format") instanceof Long n ? n : -1;
    if (format != FORMAT) {
      throw new IOException("format " + format + ", this agent reads " + FORMAT);
    }
    String id = text(root, "container");
    if (!CONTAINER_ID.matcher(id).matches() || !file.getFileName().toString().equals(id + SUFFIX)) {
      throw new IOException("container ID " + id + " does not match the file name");
    }
    List<TaskInfo> tasks = new ArrayList<>();
    for (Object t : list(root, "tasks")) {
      tasks.add(TaskInfo.parseFrom(decode(string(t, "tasks"))));
    }
    Set<String> reported = new HashSet<>();
    for (Object r : list(root, "reported")) {
      reported.add(string(r, "reported"));
    }
    Optional<ExecutorInfo> executor =
        root.containsKey("executor")
            ? Optional.of(ExecutorInfo.parseFrom(decode(text(root, "executor"))))
            : Optional.empty();
    return new ContainerRecord(
        id,
        FrameworkInfo.parseFrom(decode(text(root, "framework"))),
        AgentInfo.parseFrom(decode(text(root, "agent"))),
        executor,
        tasks,
        reported,
        root.get("pid") instanceof Long pid ? pid : -1,
        Instant.parse(text(root, "start_time")),
        Path.of(text(root, "sandbox")),
        root.containsKey("executor_token")
            ? Optional.of(ExecutorToken.of(text(root, "executor_token")))
            : Optional.empty(),
        root.containsKey("denied_devices")
            ? Optional.of(nodes(root.get("denied_devices"), "denied_devices"))
            : Optional.empty(),
        taskDevices(root.get("task_devices")));
  }

  /** Absent in records of older agents and of command tasks: no task's devices are known. */
  private static Map<String, List<DeviceNode>> taskDevices(Object byTask) throws IOException {
    Map<String, List<DeviceNode>> devices = new HashMap<>();
    if (byTask instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        devices.put((String) entry.getKey(), nodes(entry.getValue(), "task_devices"));
      }
    }
    return devices;
  }

  private static List<DeviceNode> nodes(Object list, String key) throws IOException {
    List<DeviceNode> nodes = new ArrayList<>();
    for (Object item : list instanceof List<?> l ? l : List.of()) {
      Map<?, ?> n = item instanceof Map<?, ?> m ? m : Map.of();
      if (!(n.get("major") instanceof Long major && major == major.intValue())
          || !(n.get("minor") instanceof Long minor && minor == minor.intValue())) {
        throw new IOException(
            "'"
                + key
                + "' holds a node without its numbers: "
                + new String(JsonTrees.render(item, false), StandardCharsets.UTF_8));
      }
      nodes.add(new DeviceNode(Path.of(text(n, "path")), major.intValue(), minor.intValue()));
    }
    return nodes;
  }

  private static List<?> list(Map<?, ?> root, String key) {
    return root.get(key) instanceof List<?> l ? l : List.of();
  }

  private static String string(Object value, String key) throws IOException {
    if (value instanceof String s) {
      return s;
    }
    throw new IOException("'" + key + "' holds something that is not a string");
  }

  private Path file(String containerId) {
    return dir.resolve(containerId + SUFFIX);
  }

  private static String text(Map<?, ?> root, String key) throws IOException {
    if (!(root.get(key) instanceof String v)) {
      throw new IOException("'" + key + "' is missing or not a string");
    }
    return v;
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
