package io.acceld.bench;

import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FixtureNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the latency harnesses run the agent on: a fixture node, a private copy of the NVML double
 * with the node's scenario beside it (and an empty control file), the kubelet's plugin directory,
 * and the agent's settings for them: no registration, no periodic rescan, a 20 ms quarantine and
 * a 50 ms health probe, so a fault heals between rounds.
 *
 * @param library the double's copy, for the harness's own JNA controls
 * @param control the double's control file
 * @param plugins where the agent serves its sockets
 */
record LatencyNode(FixtureNode node, Path library, Path control, Path plugins, AgentConfig config) {
  static LatencyNode prepare(Path work, FixtureNode node, Map<String, String> moreFlags)
      throws IOException {
    Path nvmlDir = Files.createDirectories(work.resolve("nvml"));
    Path library = nvmlDir.resolve("libnvidia-ml.so.1");
    Files.copy(
        Path.of(System.getProperty("acceld.nativeProbes", "target/native-probes"))
            .resolve("libnvidia-ml.so.1"),
        library,
        StandardCopyOption.REPLACE_EXISTING);
    node.nvmlScenario().writeTo(nvmlDir);
    Path control = Files.writeString(nvmlDir.resolve("nvml-control"), "");
    // The kubelet's directory: the agent waits for it rather than create it.
    Path plugins = Files.createDirectories(work.resolve("device-plugins"));
    Map<String, String> flags = new HashMap<>();
    flags.put("sysfs-root", node.tree().sysfsRoot().toString());
    flags.put("dev-root", node.tree().devRoot().toString());
    flags.put("proc-root", node.tree().procRoot().toString());
    flags.put("nvml-library", library.toString());
    flags.put("device-plugin-dir", plugins.toString());
    flags.put("kubelet-registration", "none");
    flags.put("rescan-interval", "0");
    flags.put("health-quarantine", "20ms");
    flags.put("health-probe-interval", "50ms");
    flags.putAll(moreFlags);
    AgentConfig config = ConfigLoader.load(flags, Map.of(), Optional.empty());
    return new LatencyNode(node, library, control, plugins, config);
  }
}
