package io.acceld.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One configuration of the simulated node the footprint harness starts the agent on: the issue's
 * eight-GPU node, the same with 64 GPUs, and eight GPUs shared 128 ways (1,024 advertised IDs).
 *
 * @param name short name, used in figure keys and {@code --modes}
 * @param title how the report names it
 * @param resource the resource the kubelet double waits for
 * @param ids how many IDs the first complete ListAndWatch message lists
 * @param idleCpu whether to measure idle CPU after the settle (the eight-GPU node only: the window
 *     is the slowest part of a run)
 * @param flags what the mode adds to {@code run --simulate} besides its config file
 */
record FootprintMode(
    String name, String title, String resource, int ids, boolean idleCpu, List<String> flags) {

  static final String GPU = "nvidia.com/gpu";

  /** 8 GPUs × 128 replicas: the 1,024 advertised IDs. */
  static final int REPLICAS = 128;

  static final List<FootprintMode> ALL =
      List.of(
          new FootprintMode("8", "8 GPUs", GPU, 8, true, List.of()),
          new FootprintMode("64", "64 GPUs", GPU, 64, false, List.of("--simulate-gpus", "64")),
          new FootprintMode(
              "1024", "1,024 IDs (8 GPUs × 128 replicas)", GPU, 8 * REPLICAS, false, List.of()));

  /** The flags this mode adds to {@code run --simulate}; writes its config file under root. */
  List<String> flags(Path root) throws IOException {
    if (!name.equals("1024")) {
      return flags;
    }
    // The sharing section as docs/configuration.md writes it; the resource keeps its name, so
    // the kubelet sees nvidia.com/gpu with IDs <id>::<k>.
    Path config = root.resolve("config.yaml");
    Files.writeString(config, "resources:\n  " + GPU + ":\n    replicas: " + REPLICAS + "\n");
    return List.of("--config", config.toString());
  }

  /** Whether this mode needs a flag an older agent may not have (then a refusal is a skip). */
  boolean mayBeRefused() {
    return flags.contains("--simulate-gpus");
  }
}
