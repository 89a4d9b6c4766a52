package io.acceld.doctor;

import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.discovery.DeviceNodeResolver;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.util.ClientText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node's accelerators as the agent's discovery sees them, and each one's device nodes: present,
 * character devices, with the major:minor their driver gives them and usable permissions. NVIDIA's
 * control nodes, which every GPU container gets, are one line of their own.
 */
final class DeviceChecks {
  static final String CHECK = "devices";

  /** Without these no CUDA program runs; {@code nvidia-modeset} and the UVM tools node may lack. */
  private static final Set<String> REQUIRED_CONTROL_NODES = Set.of("nvidiactl", "nvidia-uvm");

  private DeviceChecks() {}

  static List<Finding> of(Examination e) {
    Path sysfs = e.config().get(Settings.SYSFS_ROOT);
    if (!(e.inventory() instanceof Outcome.Done<Inventory> done)) {
      return List.of(
          Finding.fail(
              CHECK,
              "devices",
              "discovery over " + sysfs + " did not finish" + Outcomes.why(e.inventory()),
              "a sysfs attribute read blocks (a wedged driver): dmesg names the device; reboot"
                  + " the node if it does not recover"));
    }
    List<Device> devices = done.value().devices();
    if (devices.isEmpty()) {
      return List.of(
          Finding.fail(
              CHECK,
              "devices",
              "no accelerator found under " + sysfs.resolve("bus/pci/devices"),
              "check that lspci -nn lists the accelerator and that its kernel driver is loaded;"
                  + " in a container, mount the host's /sys at --sysfs-root"));
    }
    Path dev = e.config().get(Settings.DEV_ROOT);
    DeviceNumbers numbers = DeviceNumbers.read(e.config().get(Settings.PROC_ROOT));
    List<Finding> findings = new ArrayList<>();
    boolean nvidia = devices.stream().anyMatch(d -> d.vendorId() == DeviceClassifier.VENDOR_NVIDIA);
    if (nvidia) {
      findings.add(controlNodes(dev, numbers));
    }
    // One line per physical device: a GPU's MIG devices add their nodes to the GPU's line.
    Map<String, List<Device>> byAddress = new LinkedHashMap<>();
    devices.forEach(d -> byAddress.computeIfAbsent(d.pciAddress(), a -> new ArrayList<>()).add(d));
    for (List<Device> physical : byAddress.values()) {
      findings.add(nodes(physical, dev, numbers));
    }
    return findings;
  }

  private static Finding controlNodes(Path dev, DeviceNumbers numbers) {
    List<String> shown = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    Set<String> fixes = new LinkedHashSet<>();
    for (String node : DeviceNodeResolver.NVIDIA_CONTROL_NODES) {
      NodeCheck check = NodeCheck.of(dev, node, numbers);
      boolean optionalAndAbsent =
          !REQUIRED_CONTROL_NODES.contains(node) && check.text().endsWith(" is missing");
      if (optionalAndAbsent) {
        shown.add(check.path() + " absent (optional)");
      } else if (check.ok()) {
        shown.add(check.text());
      } else {
        wrong.add(check.text());
        fixes.add(check.fix().orElseThrow());
      }
    }
    if (wrong.isEmpty()) {
      return Finding.pass(CHECK, "nvidia control nodes", String.join(", ", shown));
    }
    return Finding.fail(
        CHECK, "nvidia control nodes", String.join("; ", wrong), String.join("; ", fixes));
  }

  private static Finding nodes(List<Device> physical, Path dev, DeviceNumbers numbers) {
    Device first = physical.get(0);
    boolean gpu = first.vendorId() == DeviceClassifier.VENDOR_NVIDIA;
    Set<String> own = new LinkedHashSet<>();
    List<String> missing = new ArrayList<>();
    for (Device d : physical) {
      d.deviceNodes().stream()
          .filter(n -> !gpu || !DeviceNodeResolver.NVIDIA_CONTROL_NODES.contains(n))
          .forEach(own::add);
      d.problems().stream()
          .filter(p -> p.kind() == HealthProblem.Kind.DEVICE_NODE_MISSING)
          .map(HealthProblem::describe)
          .forEach(missing::add);
    }
    List<String> shown = new ArrayList<>();
    List<String> wrong = new ArrayList<>(new LinkedHashSet<>(missing));
    Set<String> fixes = new LinkedHashSet<>();
    if (!missing.isEmpty()) {
      fixes.add(missingFix(first, physical));
    }
    for (String node : own) {
      NodeCheck check = NodeCheck.of(dev, node, numbers);
      if (check.ok()) {
        shown.add(check.text());
      } else {
        wrong.add(check.text());
        fixes.add(check.fix().orElseThrow());
      }
    }
    String subject = subject(first);
    // A GPU split into MIG devices is one line for all of them, named by what they share.
    boolean mig = physical.stream().anyMatch(d -> d.nvidia().flatMap(n -> n.mig()).isPresent());
    String identity =
        (mig ? physical.size() + " MIG device(s)" : ClientText.quote(first.model()))
            + " at "
            + first.pciAddress()
            + (gpu ? "" : ", NUMA node " + first.numaNode())
            + ": ";
    Finding f =
        wrong.isEmpty()
            ? Finding.pass(
                CHECK,
                subject,
                identity + (shown.isEmpty() ? "no device nodes" : String.join(", ", shown)))
            : Finding.fail(
                CHECK, subject, identity + String.join("; ", wrong), String.join("; ", fixes));
    return f.with("pciAddress", first.pciAddress()).with("resource", first.resource());
  }

  /** {@code gpu 3 nodes} for an NVIDIA GPU NVML numbers; {@code <resource> <address>} otherwise. */
  static String subject(Device d) {
    if (d.vendorId() == DeviceClassifier.VENDOR_NVIDIA && d.nvidia().isPresent()) {
      return "gpu " + d.nvidia().get().index() + " nodes";
    }
    return d.resource() + " " + d.pciAddress();
  }

  private static String missingFix(Device d, List<Device> physical) {
    String driver = d.driver().orElse("");
    if (driver.isEmpty()) {
      return "no kernel driver is bound to " + d.pciAddress() + ": load its driver (modprobe)";
    }
    if (driver.equals("vfio-pci")) {
      return NodeCheck.recreate("vfio/");
    }
    if (d.vendorId() == DeviceClassifier.VENDOR_NVIDIA) {
      int minor = d.nvidia().map(n -> n.minor()).orElse(-1);
      String gpuNode = NodeCheck.recreate(minor >= 0 ? "nvidia" + minor : "nvidiactl");
      boolean mig = physical.stream().anyMatch(p -> p.nvidia().flatMap(n -> n.mig()).isPresent());
      return mig
          ? "for a MIG capability node, "
              + NodeCheck.recreate("nvidia-caps/")
              + "; for the GPU's own node, "
              + gpuNode
          : gpuNode;
    }
    return NodeCheck.recreate("dri/");
  }
}
