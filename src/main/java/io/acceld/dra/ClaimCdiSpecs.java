package io.acceld.dra;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.cdi.CdiSpecFiles;
import io.acceld.cdi.ContainerEdits;
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
import java.util.Optional;
import java.util.Set;

/**
 * One CDI spec per prepared claim, as NVIDIA's DRA driver writes them: vendor {@code k8s.<driver>},
 * class {@code claim}, a device {@code <claim UID>-<device name>} per device, in a file named after
 * the claim's UID. Claim-unique names keep a runtime from reusing a stale cached spec of an earlier
 * claim of the same devices.
 *
 * <p>What a device gives a container comes from {@link RuntimeSpecs}, as for the other consumers.
 * Each device entry carries the nodes only it needs; nodes every device of the claim needs ({@code
 * nvidiactl}) and the environment ({@code NVIDIA_VISIBLE_DEVICES} naming all the claim's GPUs) go
 * in the spec-wide edits, because runtimes merge device entries' environments and the last one
 * would win.
 */
final class ClaimCdiSpecs {
  static final String CLASS = "claim";

  private final CdiSpecFiles files;
  private final RuntimeSpecs runtime;
  private final String vendor;

  ClaimCdiSpecs(DraSettings settings) {
    this.files = new CdiSpecFiles(settings.cdiDir());
    this.runtime = new RuntimeSpecs(settings.hostDevPrefix(), Optional.empty());
    this.vendor = settings.cdiVendor();
  }

  /** {@code k8s.<driver>/claim}. */
  String kind() {
    return vendor + "/" + CLASS;
  }

  /** The CDI device name of {@code deviceName} in claim {@code uid}. */
  static String cdiName(String uid, String deviceName) {
    return uid + "-" + deviceName;
  }

  /** The fully qualified CDI ID the kubelet hands the runtime. */
  String cdiId(String uid, String deviceName) {
    return kind() + "=" + cdiName(uid, deviceName);
  }

  /** {@code k8s.<driver>-claim_<uid>.json}. */
  String fileName(String uid) {
    return vendor + "-" + CLASS + "_" + uid + ".json";
  }

  Path file(String uid) {
    return files.file(fileName(uid));
  }

  /** The UIDs of the claims whose specs are in the directory. */
  List<String> claimsOnDisk() throws IOException {
    String prefix = vendor + "-" + CLASS + "_";
    List<String> uids = new ArrayList<>();
    for (String name : files.names(prefix)) {
      if (name.endsWith(".json")) {
        uids.add(name.substring(prefix.length(), name.length() - ".json".length()));
      }
    }
    return uids;
  }

  /** Writes (or replaces) the spec of claim {@code uid} with {@code devices}, by DRA name. */
  void write(String uid, Map<String, Device> devices) throws IOException {
    files.write(fileName(uid), JsonTrees.render(spec(uid, devices), true));
  }

  void remove(String uid) throws IOException {
    files.remove(fileName(uid));
  }

  Map<String, Object> spec(String uid, Map<String, Device> devices) {
    Map<String, Integer> uses = new HashMap<>();
    Map<String, RuntimeSpec> each = new LinkedHashMap<>();
    devices.forEach(
        (name, d) -> {
          RuntimeSpec own = runtime.forDevices(List.of(d));
          each.put(name, own);
          own.deviceNodes().forEach(n -> uses.merge(n.containerPath(), 1, Integer::sum));
        });
    RuntimeSpec all = runtime.forDevices(List.copyOf(devices.values()));
    Set<RuntimeSpec.DeviceNode> shared = new LinkedHashSet<>();
    List<Map<String, Object>> entries = new ArrayList<>();
    each.forEach(
        (name, own) -> {
          List<RuntimeSpec.DeviceNode> nodes = new ArrayList<>();
          for (RuntimeSpec.DeviceNode n : own.deviceNodes()) {
            if (devices.size() > 1 && uses.get(n.containerPath()) == devices.size()) {
              shared.add(n);
            } else {
              nodes.add(n);
            }
          }
          Map<String, Object> entry = new LinkedHashMap<>();
          entry.put("name", cdiName(uid, name));
          entry.put(
              "containerEdits",
              ContainerEdits.of(new RuntimeSpec(Map.of(), nodes, List.of(), List.of())));
          entries.add(entry);
        });
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cdiVersion", CdiSpecFiles.CDI_VERSION);
    spec.put("kind", kind());
    spec.put("devices", entries);
    Map<String, Object> common =
        ContainerEdits.of(new RuntimeSpec(all.env(), List.copyOf(shared), List.of(), all.mounts()));
    if (!all.env().isEmpty() || !shared.isEmpty() || !all.mounts().isEmpty()) {
      spec.put("containerEdits", common);
    }
    return spec;
  }
}
