package io.acceld.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.inventory.Inventory;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StartupReportTest {
  @Test
  void namesTheVersionEverySettingsSourceAndZeroDevicesOfAnExpectedResource() {
    AgentConfig config =
        ConfigLoader.load(
            Map.of("expect-devices", "nvidia.com/gpu>=1"),
            Map.of("ACCELD_RESCAN_INTERVAL", "1m"),
            Optional.empty());

    String line = StartupReport.line("1.2.3", config, Inventory.EMPTY);

    assertThat(line)
        .startsWith("acceld 1.2.3 started; settings: ")
        .contains("expect-devices=nvidia.com/gpu>=1 (flag)")
        .contains("rescan-interval=1m (env)")
        .contains("health-probe-interval=5s (default)")
        .contains("health-quarantine=forever (default)")
        .contains("mesos-address=(none) (default)")
        .contains("xid-ignore-add=(none) (default)")
        .contains("metrics-address=0.0.0.0:9445 (default)")
        .endsWith("; found: nvidia.com/gpu: 0 devices")
        .doesNotContain("\n");
  }

  @Test
  void aNodeWithNothingExpectedAndNothingFoundSaysZeroDevices() {
    AgentConfig config = ConfigLoader.load(Map.of(), Map.of(), Optional.empty());

    assertThat(StartupReport.line("1.2.3", config, Inventory.EMPTY)).endsWith("; found: 0 devices");
  }
}
