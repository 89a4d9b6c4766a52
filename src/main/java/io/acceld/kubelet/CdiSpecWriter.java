package io.acceld.kubelet;

import io.acceld.cdi.CdiSpecFiles;
import io.acceld.inventory.Device;
import io.acceld.util.JsonTrees;
import java.io.IOException;
import java.nio.file.Path;
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
 * resource needs ({@code nvidiactl}, {@code kfd}) go in the spec-wide edits. How files are written
 * (atomically, durably, 0644) is {@link CdiSpecFiles}'s, shared with DRA's per-claim specs.
 *
 * <p>A spec says which device nodes each device needs, nothing about health: {@link #render} of a
 * device set is the same whatever the devices' health, which is what lets {@link CdiSpecSync} skip
 * rewriting a file when only health changed.
 */
public final class CdiSpecWriter {
  public static final String CDI_VERSION = CdiSpecFiles.CDI_VERSION;
  private static final Path CONTAINER_DEV = Path.of("/dev");

  private final CdiSpecFiles files;
  private final Path hostDevPrefix;

  public CdiSpecWriter(Path cdiDir, Path hostDevPrefix) {
    this.files = new CdiSpecFiles(cdiDir);
    this.hostDevPrefix = hostDevPrefix;
  }

  /** The spec file of {@code resource}. */
  public Path specFile(String resource) {
    return files.file(fileName(resource));
  }

  private static String fileName(String resource) {
    return "acceld-" + resource.replace('/', '_') + ".json";
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
    write(resource, render(resource, devices));
  }

  /** Writes (or replaces) the spec of {@code resource} with content {@link #render} made. */
  public void write(String resource, byte[] rendered) throws IOException {
    files.write(fileName(resource), rendered);
  }

  /** The file content of the spec of {@code resource} with {@code devices}. */
  public byte[] render(String resource, List<Device> devices) {
    return JsonTrees.render(spec(resource, devices), true);
  }

  public void remove(String resource) throws IOException {
    files.remove(fileName(resource));
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
