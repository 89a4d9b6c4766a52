package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registration through the kubelet's plugin watcher instead of kubelet.sock. */
class PluginWatcherIT {
  @TempDir Path root;

  @Test
  void theWatcherFindsOurSocketAndRegistersTheResource() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root.resolve("node"));
    Path registry = root.resolve("kubelet/plugins_registry");
    try (KubeletDouble kubelet =
            KubeletDouble.builder(root.resolve("kubelet/device-plugins"))
                .pluginsRegistryDir(registry)
                .start();
        AgentHarness agent =
            AgentHarness.on(node.tree())
                .flag("kubelet-registration", "plugin-watcher")
                .flag("device-plugin-dir", kubelet.deviceDir().toString())
                .flag("plugins-registry-dir", registry.toString())
                .start(root.resolve("etc"))) {

      Registration r = kubelet.awaitRegistered("amd.com/gpu", Duration.ofSeconds(5));

      assertThat(r.mode()).isEqualTo(Registration.Mode.PLUGIN_WATCHER);
      assertThat(r.registrySocket().orElseThrow())
          .isEqualTo(registry.resolve("acceld-amd.com_gpu.sock"));
      kubelet.awaitDevices("amd.com/gpu", l -> l.size() == 2, Duration.ofSeconds(3));
      kubelet.awaitNotification(n -> n.registered(), Duration.ofSeconds(5));
      kubelet.awaitCondition("agent ready", () -> agent.kubelet().ready(), Duration.ofSeconds(5));
      assertThat(kubelet.allocateOne("amd.com/gpu", List.of("0000:41:00.0")).getDevicesCount())
          .isEqualTo(3);
    }
  }
}
