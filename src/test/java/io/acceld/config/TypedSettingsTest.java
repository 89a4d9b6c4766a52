package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Settings whose values are a fixed set are read as enums, so no user parses the word again. */
class TypedSettingsTest {
  private static AgentConfig load(Map<String, String> flags, Map<String, String> env) {
    return ConfigLoader.load(flags, env, Optional.empty());
  }

  @Test
  void registrationModeIsAnEnumWithClassicByDefault() {
    assertThat(load(Map.of(), Map.of()).get(Settings.KUBELET_REGISTRATION))
        .isEqualTo(RegistrationMode.CLASSIC);
    assertThat(
            load(Map.of("kubelet-registration", "plugin-watcher"), Map.of())
                .get(Settings.KUBELET_REGISTRATION))
        .isEqualTo(RegistrationMode.PLUGIN_WATCHER);
    assertThat(
            load(Map.of(), Map.of("ACCELD_KUBELET_REGISTRATION", " none "))
                .get(Settings.KUBELET_REGISTRATION))
        .isEqualTo(RegistrationMode.NONE);
  }

  @Test
  void anUnknownRegistrationModeNamesTheFlagAndTheWords() {
    assertThatThrownBy(() -> load(Map.of("kubelet-registration", "watcher"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "flag --kubelet-registration: expects one of classic, plugin-watcher, none, got"
                + " 'watcher'");
  }

  @Test
  void dcgmModelLabelIsAnEnumWithThePromtoolSpellingByDefault() {
    assertThat(load(Map.of(), Map.of()).get(Settings.DCGM_MODEL_LABEL))
        .isEqualTo(DcgmModelLabel.PROMTOOL_CLEAN);
    AgentConfig camel = load(Map.of("dcgm-model-label", "modelName"), Map.of());
    assertThat(camel.get(Settings.DCGM_MODEL_LABEL)).isEqualTo(DcgmModelLabel.DCGM_EXPORTER);
    assertThat(camel.get(Settings.DCGM_MODEL_LABEL).word()).isEqualTo("modelName");
    // Matched exactly: the two spellings differ only in case, so a case-folded match would guess.
    assertThatThrownBy(() -> load(Map.of(), Map.of("ACCELD_DCGM_MODEL_LABEL", "modelname")))
        .hasMessage(
            "environment variable ACCELD_DCGM_MODEL_LABEL: expects one of model_name, modelName,"
                + " got 'modelname'");
  }

  @Test
  void theEnvironmentTravelsWithTheConfigThroughSimulateMode() {
    AgentConfig config = load(Map.of(), Map.of("NODE_NAME", "k8s-node-7"));
    AgentConfig simulated = config.withSimulated(Map.of(Settings.SYSFS_ROOT, Path.of("/sim/sys")));

    assertThat(config.environment()).containsEntry("NODE_NAME", "k8s-node-7");
    assertThat(simulated.environment()).isEqualTo(config.environment());
  }
}
