package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code acceld kubelet-probe} against a real agent serving a fixture node through NVML. */
class KubeletProbeIT {
  static final String NVIDIA = "nvidia.com/gpu";

  @TempDir Path root;

  @Test
  void printsTheOptionsTheDevicesWithNumaAndAnAllocation() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    Path plugins = root.resolve("device-plugins");
    Files.createDirectories(plugins);
    try (AgentHarness agent =
        AgentHarness.on(node.tree())
            .flag("nvml-library", nvml.libraryPath().toString())
            .flag("device-plugin-dir", plugins.toString())
            .flag("kubelet-registration", "none")
            .start(root.resolve("agent"))) {
      Eventually.await("serving", () -> agent.kubelet().socketOf(NVIDIA).isPresent());

      CliTest.Run probe =
          CliTest.run(
              Map.of(),
              "kubelet-probe",
              NVIDIA,
              "--device-plugin-dir",
              plugins.toString(),
              "--allocate",
              "2");

      assertThat(probe.exit()).as(probe.err()).isZero();
      List<String> lines = probe.out().lines().toList();
      assertThat(lines.get(0)).isEqualTo("plugin " + plugins.resolve("acceld-nvidia.com_gpu.sock"));
      assertThat(lines.get(1))
          .isEqualTo("options: pre_start_required=false get_preferred_allocation_available=true");
      assertThat(lines.get(2)).isEqualTo("devices: 8");
      for (int i = 0; i < 8; i++) {
        String uuid = node.gpus().get(i).uuid();
        assertThat(lines).contains("  " + uuid + "  Healthy  numa=" + (i < 4 ? 0 : 1));
      }
      String preferred =
          lines.stream()
              .filter(l -> l.startsWith("preferred allocation: "))
              .findFirst()
              .orElseThrow();
      List<String> chosen = List.of(preferred.substring(22).split(","));
      assertThat(chosen).hasSize(2);
      assertThat(lines).contains("allocate " + String.join(",", chosen) + ":");
      assertThat(lines)
          .anySatisfy(
              l ->
                  assertThat(l).startsWith("  env NVIDIA_VISIBLE_DEVICES=").contains(chosen.get(0)))
          .anySatisfy(l -> assertThat(l).startsWith("  device ").contains("/dev/nvidia"));
    }
  }

  @Test
  void aResourceWithNoSocketExitsFiveWithOneLine() {
    CliTest.Run probe =
        CliTest.run(Map.of(), "kubelet-probe", NVIDIA, "--device-plugin-dir", root.toString());

    assertThat(probe.exit()).isEqualTo(5);
    assertThat(probe.err().lines().toList())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith(
                        "acceld: no plugin socket at "
                            + root.resolve("acceld-nvidia.com_gpu.sock")));
  }

  @Test
  void helpSaysThatAnAllocateLeasesTheDevices() {
    CliTest.Run help = CliTest.run(Map.of(), "kubelet-probe", "--help");

    assertThat(help.out().replaceAll("\\s+", " ")).contains("--kubelet-pending-lease-ttl");
  }
}
