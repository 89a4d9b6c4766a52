package io.acceld.mesos.containment;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The accelerator device nodes under {@code --dev-root}: what the device fence denies unless a task
 * was given them. Ordinary nodes ({@code /dev/null}, ttys, display-only {@code nvidia-modeset}) are
 * never listed, so the fence leaves them alone.
 */
final class AcceleratorNodes {
  /** Per-GPU and shared NVIDIA nodes, AMD's compute node, and symlinks excluded by the scan. */
  private static final Pattern TOP =
      Pattern.compile("nvidia[0-9]+|nvidiactl|nvidia-uvm|nvidia-uvm-tools|kfd");

  private static final Pattern NVIDIA_GPU = Pattern.compile("nvidia[0-9]+");

  /** Subdirectories whose nodes are accelerators: MIG capabilities, DRM GPUs, compute accels. */
  private static final List<Map.Entry<String, Pattern>> SUBDIRS =
      List.of(
          Map.entry("nvidia-caps", Pattern.compile("nvidia-cap[0-9]+")),
          Map.entry("dri", Pattern.compile("(card|renderD)[0-9]+")),
          Map.entry("accel", Pattern.compile("accel[0-9]+")));

  /** What a task with any NVIDIA GPU (or MIG device) also needs to use it. */
  private static final List<String> NVIDIA_SHARED =
      List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools");

  private AcceleratorNodes() {}

  /**
   * Every accelerator character device under {@code devRoot}, keyed by its path relative to it.
   * Symlinks are skipped (their targets are listed), and so are files that are not char devices.
   */
  static Map<String, DeviceNode> scan(Path devRoot) throws IOException {
    Map<String, DeviceNode> nodes = new LinkedHashMap<>();
    add(nodes, devRoot, "", TOP);
    for (Map.Entry<String, Pattern> sub : SUBDIRS) {
      add(nodes, devRoot.resolve(sub.getKey()), sub.getKey() + "/", sub.getValue());
    }
    return nodes;
  }

  private static void add(Map<String, DeviceNode> nodes, Path dir, String prefix, Pattern names)
      throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> sorted = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      entries.forEach(sorted::add);
    }
    sorted.sort(null);
    for (Path entry : sorted) {
      String name = entry.getFileName().toString();
      if (names.matcher(name).matches() && DeviceNode.isCharDevice(entry)) {
        nodes.put(prefix + name, DeviceNode.of(entry));
      }
    }
  }

  /**
   * The nodes a task may open: {@code allowed} plus the shared NVIDIA nodes when it has an NVIDIA
   * GPU or MIG capability, and {@code kfd} when it has a DRM GPU (AMD's compute path needs both).
   */
  static List<DeviceNode> withCompanions(
      Map<String, DeviceNode> present, List<DeviceNode> allowed) {
    List<DeviceNode> all = new ArrayList<>(allowed);
    boolean nvidia = false;
    boolean drm = false;
    for (Map.Entry<String, DeviceNode> node : present.entrySet()) {
      if (allowed.stream().anyMatch(a -> a.sameDevice(node.getValue()))) {
        String name = node.getKey();
        nvidia |= NVIDIA_GPU.matcher(name).matches() || name.startsWith("nvidia-caps/");
        drm |= name.startsWith("dri/");
      }
    }
    List<String> companions = new ArrayList<>();
    if (nvidia) {
      companions.addAll(NVIDIA_SHARED);
    }
    if (drm) {
      companions.add("kfd");
    }
    for (String name : companions) {
      DeviceNode node = present.get(name);
      if (node != null) {
        all.add(node);
      }
    }
    return all;
  }

  /** The present accelerator nodes that none of {@code allowed} is. */
  static List<DeviceNode> denied(Map<String, DeviceNode> present, List<DeviceNode> allowed) {
    return present.values().stream()
        .filter(node -> allowed.stream().noneMatch(node::sameDevice))
        .distinct()
        .toList();
  }
}
