package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is the operator's reference to every setting: generated, never stale. */
class ConfigurationReferenceTest {
  @BeforeAll
  static void regenerateWhenAsked() throws Exception {
    if (Boolean.getBoolean("acceld.regenerate")) {
      ConfigurationReference.regenerate();
    }
  }

  @Test
  void theReferenceIsTheSettingsTable() throws Exception {
    String current = Files.readString(ConfigurationReference.FILE);

    assertThat(current)
        .as(
            ConfigurationReference.FILE
                + " drifted from Settings.java; regenerate with -Dacceld.regenerate=true")
        .isEqualTo(ConfigurationReference.regenerated(current));
  }

  @Test
  void everySettingHasItsFlagEnvVarYamlKeyAndDefault() throws Exception {
    String current = Files.readString(ConfigurationReference.FILE);
    for (Setting<?> s : Settings.ALL) {
      assertThat(current)
          .as(s.key())
          .containsPattern(
              "\\| `"
                  + java.util.regex.Pattern.quote(s.flag())
                  + "[ \\[][^|]*` \\| `"
                  + s.envVar()
                  + "` \\| `"
                  + s.key()
                  + "` \\| "
                  + java.util.regex.Pattern.quote(
                      s.defaultShown().equals("(none)") ? "(none)" : "`" + s.defaultText() + "`")
                  + " \\| ");
    }
  }

  @Test
  void emptyDefaultsReadNone() {
    assertThat(Settings.EXPECT_DEVICES.defaultShown()).isEqualTo("(none)");
    assertThat(Settings.NODE_NAME.defaultShown()).isEqualTo("(none)");
    assertThat(Settings.SYSFS_ROOT.defaultShown()).isEqualTo("/sys");
    assertThat(ConfigurationReference.table())
        .anySatisfy(
            row ->
                assertThat(row)
                    .startsWith("| `--expect-devices EXPECTATIONS` |")
                    .contains("| (none) |"));
  }
}
