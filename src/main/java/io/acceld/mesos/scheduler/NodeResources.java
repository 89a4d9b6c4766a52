package io.acceld.mesos.scheduler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's CPUs, memory and disk as Mesos counts them (CPUs, MB, MB), read once at start: from
 * {@code cpuinfo} (or {@code stat}) and {@code meminfo} under {@code --proc-root}, and the file
 * store of the state directory, where task sandboxes live. What {@code --mesos-reserve} names is
 * taken off.
 */
final class NodeResources {
  private static final Logger log = LoggerFactory.getLogger(NodeResources.class);
  private static final double MB = 1024.0 * 1024.0;

  private NodeResources() {}

  /**
   * The node's total minus {@code reserve}. A file that cannot be read counts as zero of its
   * resource, with a log line: the node is then offered without it rather than not at all.
   */
  static Quantities read(Path procRoot, Path stateDir, Quantities reserve) {
    Quantities total =
        new Quantities(
            Map.of("cpus", cpus(procRoot), "mem", memMb(procRoot), "disk", diskMb(stateDir)));
    Quantities offered = total.minus(reserve);
    log.info("Mesos resources: node {}, reserved {}, offered {}", total, reserve, offered);
    return offered;
  }

  static double cpus(Path procRoot) {
    try {
      List<String> lines = Files.readAllLines(procRoot.resolve("cpuinfo"));
      long n = lines.stream().filter(l -> l.matches("processor\\s*:.*")).count();
      if (n > 0) {
        return n;
      }
    } catch (IOException e) {
      log.debug("No {}: {}", procRoot.resolve("cpuinfo"), e.toString());
    }
    try {
      List<String> lines = Files.readAllLines(procRoot.resolve("stat"));
      long n = lines.stream().filter(l -> l.matches("cpu[0-9]+\\s.*")).count();
      if (n > 0) {
        return n;
      }
      log.warn("{} lists no CPUs; offering none", procRoot.resolve("stat"));
    } catch (IOException e) {
      log.warn("Cannot count CPUs from {}: {}", procRoot, e.toString());
    }
    return 0;
  }

  static double memMb(Path procRoot) {
    Path meminfo = procRoot.resolve("meminfo");
    try {
      for (String line : Files.readAllLines(meminfo)) {
        if (line.startsWith("MemTotal:")) {
          String[] parts = line.substring("MemTotal:".length()).trim().split("\\s+");
          return Math.floor(Long.parseLong(parts[0]) / 1024.0);
        }
      }
      log.warn("{} has no MemTotal line; offering no memory", meminfo);
    } catch (IOException | RuntimeException e) {
      log.warn("Cannot read the memory size from {}: {}", meminfo, e.toString());
    }
    return 0;
  }

  static double diskMb(Path stateDir) {
    try {
      return Math.floor(Files.getFileStore(stateDir).getTotalSpace() / MB);
    } catch (IOException e) {
      log.warn("Cannot read the size of the file system of {}: {}", stateDir, e.toString());
      return 0;
    }
  }
}
