package io.acceld.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every setting the agent has. Adding one here adds its flag, env var and YAML key. Constants only:
 * the table is immutable.
 */
public final class Settings {
  private Settings() {}

  public static final Setting<Path> SYSFS_ROOT =
      new Setting<>("sysfs-root", "DIR", "Where sysfs is mounted.", Parsers.path(), "/sys");

  public static final Setting<Path> DEV_ROOT =
      new Setting<>(
          "dev-root",
          "DIR",
          "Where the agent reads device nodes (inside a container, the host's /dev mount).",
          Parsers.path(),
          "/dev");

  public static final Setting<Path> PROC_ROOT =
      new Setting<>("proc-root", "DIR", "Where procfs is mounted.", Parsers.path(), "/proc");

  public static final Setting<String> NVML_LIBRARY =
      new Setting<>(
          "nvml-library",
          "PATH",
          "NVML library to load: the soname, an absolute path, or 'none' to run without NVML.",
          Parsers.string(),
          "libnvidia-ml.so.1");

  public static final Setting<String> LOG_LEVEL =
      new Setting<>(
          "log-level",
          "LEVEL",
          "Log level: error, warn, info, debug or trace.",
          Parsers.choice("error", "warn", "info", "debug", "trace"),
          "info");

  public static final Setting<Duration> RESCAN_INTERVAL =
      new Setting<>(
          "rescan-interval",
          "DURATION",
          "How often 'run' rediscovers devices to catch hot-plug (0 disables).",
          Parsers.duration(),
          "30s");

  /** All settings, in the order help and the README list them. */
  public static final List<Setting<?>> ALL =
      List.of(SYSFS_ROOT, DEV_ROOT, PROC_ROOT, NVML_LIBRARY, LOG_LEVEL, RESCAN_INTERVAL);

  public static Optional<Setting<?>> byKey(String key) {
    return ALL.stream().filter(s -> s.key().equals(key)).findFirst();
  }
}
