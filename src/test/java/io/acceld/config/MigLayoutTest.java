package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigLayoutTest {
  @Test
  void aLayoutListsEachGpusDevicesWithRepeats() {
    MigLayout layout = MigLayout.parse("0=1g.10gb*7;1=3g.40gb,2g.20gb*2;2=");

    assertThat(layout.profiles())
        .isEqualTo(
            Map.of(
                0,
                    List.of(
                        "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb",
                        "1g.10gb"),
                1, List.of("3g.40gb", "2g.20gb", "2g.20gb"),
                2, List.of()));
    assertThat(MigLayout.parse(layout.toString())).isEqualTo(layout);
    assertThat(MigLayout.parse("").isEmpty()).isTrue();
  }

  @Test
  void badLayoutsAreRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> MigLayout.parse("0=9g.90gb"))
        .hasMessageContaining("unknown MIG profile '9g.90gb'")
        .hasMessageContaining("1g.10gb");
    assertThatThrownBy(() -> MigLayout.parse("0=1g.10gb*8"))
        .hasMessageContaining("more than the GPU's 7 slices");
    assertThatThrownBy(() -> MigLayout.parse("0=4g.40gb,4g.40gb"))
        .hasMessageContaining("more than the GPU's 7 slices");
    assertThatThrownBy(() -> MigLayout.parse("x=1g.10gb")).hasMessageContaining("not a GPU index");
    assertThatThrownBy(() -> MigLayout.parse("1g.10gb")).hasMessageContaining("GPU=PROFILE");
    assertThatThrownBy(() -> MigLayout.parse("0=1g.10gb;0=1g.10gb")).hasMessageContaining("twice");
    assertThatThrownBy(() -> MigLayout.parse("0=4c.3g.40gb"))
        .hasMessageContaining("more compute slices");
  }
}
