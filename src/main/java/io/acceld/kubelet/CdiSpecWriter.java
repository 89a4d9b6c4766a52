package io.acceld.kubelet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.acceld.inventory.Device;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes one CDI spec file per resource into {@code --cdi-dir} and keeps it in step with the
 * inventory. Each device's own nodes go in its {@code containerEdits}; nodes every device of the
 * resource needs ({@code nvidiactl}, {@code kfd}) go in the spec-wide edits. Files are replaced
 * atomically (write a temporary file, then rename) so a container runtime never reads half a spec.
 */
public final class CdiSpecWriter {
  public static final String CDI_VERSION = "0.6.0";
  private static final Path CONTAINER_DEV = Path.of("/dev");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path cdiDir;
  private final Path hostDevPrefix;

  public CdiSpecWriter(Path cdiDir, Path hostDevPrefix) {
    this.cdiDir = cdiDir;
    this.hostDevPrefix = hostDevPrefix;
  }

  /** The spec file of {@code resource}. */
  public Path specFile(String resource) {
    return cdiDir.resolve("acceld-" + resource.replace('/', '_') + ".json");
  }

  /** CDI device names allow letters, digits and {@code _.:-}; our IDs already fit. */
  public static String deviceName(Device device) {
    return device.id().replaceAll("[^A-Za-z0-9_.:-]", "-");
  }

  /** Fully qualified names, {@code <kind>=<name>}, as Allocate returns them. */
  public static AllocationResponder.CdiNames names() {
    return device -> device.resource() + "=" + deviceName(device);
  }

  /** Writes (or replaces) the spec of {@code resource} with {@code devices}. */
  public void write(String resource, List<Device> devices) throws IOException {
    Files.createDirectories(cdiDir);
    byte[] content = JSON.writeValueAsBytes(spec(resource, devices));
    Path target = specFile(resource);
    Path temp = Files.createTempFile(cdiDir, ".acceld-", ".tmp");
    try {
      Files.write(temp, content);
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  public void remove(String resource) throws IOException {
    Files.deleteIfExists(specFile(resource));
  }

  Map<String, Object> spec(String resource, List<Device> devices) {
    Map<String, Integer> uses = new HashMap<>();
    devices.forEach(d -> d.deviceNodes().forEach(n -> uses.merge(n, 1, Integer::sum)));
    Set<String> shared = new LinkedHashSet<>();
    List<Map<String, Object>> entries = new ArrayList<>();
    for (Device d : devices) {
      List<Map<String, Object>> own = new ArrayList<>();
      for (String node : d.deviceNodes()) {
        if (devices.size() > 1 && uses.get(node) == devices.size()) {
          shared.add(node);
        } else {
          own.add(deviceNode(node));
        }
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", deviceName(d));
      entry.put("containerEdits", Map.of("deviceNodes", own));
      entries.add(entry);
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cdiVersion", CDI_VERSION);
    spec.put("kind", resource);
    spec.put("devices", entries);
    if (!shared.isEmpty()) {
      spec.put(
          "containerEdits", Map.of("deviceNodes", shared.stream().map(this::deviceNode).toList()));
    }
    return spec;
  }

  private Map<String, Object> deviceNode(String node) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("path", CONTAINER_DEV.resolve(node).toString());
    n.put("hostPath", hostDevPrefix.resolve(node).toString());
    n.put("permissions", "rw");
    return n;
  }
}
