package io.acceld.discovery;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The driver's table of MIG capability minors, {@code <proc-root>/driver/nvidia-caps/mig-minors}:
 * one {@code <capability> <minor>} per line ({@code gpu0/gi7/access 66}, {@code gpu0/gi7/ci0/access
 * 67}) for every possible instance, keyed by the parent's device minor. A MIG device's access nodes
 * are {@code /dev/nvidia-caps/nvidia-cap<minor>}. Read again at every scan, as NVIDIA's plugin
 * does; malformed lines are skipped.
 *
 * @param problem why the table could not be read, if it could not
 */
public record MigMinors(Map<String, Integer> minors, Optional<String> problem) {
  static final Path FILE = Path.of("driver", "nvidia-caps", "mig-minors");

  /** Lines beyond this are ignored: the driver's table for 32 GPUs has about 4,300. */
  static final int MAX_LINES = 65_536;

  private static final int MAX_LINE = 200;

  public MigMinors {
    minors = Map.copyOf(minors);
  }

  static MigMinors read(Path procRoot) {
    Path file = procRoot.resolve(FILE);
    List<String> lines = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
      for (String line = in.readLine(); line != null && lines.size() < MAX_LINES; ) {
        lines.add(line.length() > MAX_LINE ? line.substring(0, MAX_LINE) : line);
        line = in.readLine();
      }
    } catch (NoSuchFileException e) {
      return new MigMinors(Map.of(), Optional.of(file + " does not exist"));
    } catch (IOException | RuntimeException e) {
      return new MigMinors(Map.of(), Optional.of("cannot read " + file + ": " + e.getMessage()));
    }
    Map<String, Integer> minors = new HashMap<>();
    for (String line : lines) {
      String[] f = line.strip().split("\\s+");
      if (f.length != 2) {
        continue;
      }
      try {
        int minor = Integer.parseInt(f[1]);
        if (minor >= 0) {
          minors.put(f[0], minor);
        }
      } catch (NumberFormatException e) {
        // skipped, as the toolkit does
      }
    }
    return new MigMinors(minors, Optional.empty());
  }

  /** The access capability of GPU instance {@code gi} on the GPU with device minor {@code gpu}. */
  static String gpuInstance(int gpu, int gi) {
    return "gpu" + gpu + "/gi" + gi + "/access";
  }

  /** The access capability of compute instance {@code ci} of that GPU instance. */
  static String computeInstance(int gpu, int gi, int ci) {
    return "gpu" + gpu + "/gi" + gi + "/ci" + ci + "/access";
  }

  OptionalInt minor(String capability) {
    Integer m = minors.get(capability);
    return m == null ? OptionalInt.empty() : OptionalInt.of(m);
  }
}
