package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeviceExpectationTest {
  @Test
  void exactAndAtLeastCountsForSeveralResources() {
    AgentConfig config =
        ConfigLoader.load(
            Map.of("expect-devices", "nvidia.com/gpu=8, amd.com/gpu>=1"),
            Map.of(),
            Optional.empty());

    List<DeviceExpectation> expected = config.get(Settings.EXPECT_DEVICES);

    assertThat(expected)
        .containsExactly(
            new DeviceExpectation("nvidia.com/gpu", false, 8),
            new DeviceExpectation("amd.com/gpu", true, 1));
    assertThat(expected.get(0).metBy(8)).isTrue();
    assertThat(expected.get(0).metBy(7)).isFalse();
    assertThat(expected.get(0).metBy(9)).isFalse();
    assertThat(expected.get(1).metBy(0)).isFalse();
    assertThat(expected.get(1).metBy(3)).isTrue();
    assertThat(expected)
        .extracting(Object::toString)
        .containsExactly("nvidia.com/gpu=8", "amd.com/gpu>=1");
  }

  @Test
  void noneByDefault() {
    AgentConfig config = ConfigLoader.load(Map.of(), Map.of(), Optional.empty());

    assertThat(config.get(Settings.EXPECT_DEVICES)).isEmpty();
    assertThat(config.get(Settings.FAIL_ON_INIT_ERROR)).isFalse();
  }

  @Test
  void aMalformedExpectationNamesTheSettingAndTheForm() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("expect-devices", "nvidia.com/gpu:8"), Map.of(), Optional.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--expect-devices")
        .hasMessageContaining("RESOURCE>=COUNT")
        .hasMessageContaining("nvidia.com/gpu:8");
  }

  @Test
  void aResourceNamedTwiceIsRefused() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("expect-devices", "nvidia.com/gpu=8,nvidia.com/gpu>=1"),
                    Map.of(),
                    Optional.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("more than once");
  }
}
