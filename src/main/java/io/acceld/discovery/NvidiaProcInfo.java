package io.acceld.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The NVIDIA driver's per-GPU information file, {@code
 * <proc-root>/driver/nvidia/gpus/<address>/information}: {@code Model:}, {@code GPU UUID:}, {@code
 * Device Minor:} and so on. Without NVML it is the only source of a GPU's minor number and model.
 */
public record NvidiaProcInfo(Map<String, String> fields) {

  public NvidiaProcInfo {
    fields = Map.copyOf(fields);
  }

  public static Optional<NvidiaProcInfo> read(Path procRoot, String pciAddress) {
    Path file = procRoot.resolve("driver/nvidia/gpus").resolve(pciAddress).resolve("information");
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      Map<String, String> fields = new LinkedHashMap<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        int colon = line.indexOf(':');
        if (colon > 0) {
          fields.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
        }
      }
      return Optional.of(new NvidiaProcInfo(fields));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  public OptionalInt minor() {
    try {
      String v = fields.get("Device Minor");
      return v == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(v));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  public Optional<String> model() {
    return Optional.ofNullable(fields.get("Model")).filter(s -> !s.isBlank());
  }
}
