package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A misspelt ACCELD_* variable is named, with the setting meant; a known one is not. */
class EnvironmentCheckTest {
  private static final Pattern NAME = Pattern.compile("\\bACCELD_[A-Z0-9_]+");

  @Test
  void aMisspeltSettingVariableIsNamedWithTheClosestSetting() {
    assertThat(EnvironmentCheck.warnings(Map.of("ACCELD_SYSFS_ROT", "/host/sys")))
        .containsExactly(
            "environment variable \"ACCELD_SYSFS_ROT\" matches no setting and is ignored"
                + " (did you mean 'ACCELD_SYSFS_ROOT'?)");
    assertThat(EnvironmentCheck.warnings(Map.of("ACCELD_CONFG", "/etc/acceld/x.yaml")))
        .singleElement()
        .asString()
        .endsWith("(did you mean 'ACCELD_CONFIG'?)");
  }

  @Test
  void aVariableNearNothingIsStillNamed() {
    assertThat(EnvironmentCheck.warnings(Map.of("ACCELD_WIDGET_COLOUR", "blue")))
        .containsExactly(
            "environment variable \"ACCELD_WIDGET_COLOUR\" matches no setting and is ignored"
                + " (acceld help run lists the settings)");
  }

  @Test
  void settingsTheLaunchersVariablesAndOtherProgramsVariablesAreQuiet() {
    Map<String, String> env =
        Map.of(
            "ACCELD_SYSFS_ROOT", "/host/sys",
            "ACCELD_MESOS_ADDRESS", "127.0.0.1:5050",
            "ACCELD_CONFIG", "/etc/acceld/config.yaml",
            "ACCELD_JVM_EXTRA_FLAGS", "-Xmx96m",
            "ACCELD_ARGS", "",
            "PATH", "/usr/bin",
            "NODE_NAME", "gpu-1",
            "XACCELD_SYSFS_ROT", "not ours");

    assertThat(EnvironmentCheck.warnings(env)).isEmpty();
  }

  @Test
  void severalAreNamedOnceEachInOrderAndNoNameCanForgeALogLine() {
    assertThat(
            EnvironmentCheck.warnings(
                Map.of("ACCELD_LOG_LEVL", "debug", "ACCELD_CDI_DIRR", "/x", "ACCELD_\nFAKE", "")))
        .hasSize(3)
        .satisfies(w -> assertThat(w.get(0)).contains("\"ACCELD_\\u000aFAKE\""))
        .satisfies(w -> assertThat(w.get(1)).contains("'ACCELD_CDI_DIR'"))
        .satisfies(w -> assertThat(w.get(2)).contains("'ACCELD_LOG_LEVEL'"))
        .allSatisfy(w -> assertThat(w).doesNotContain("\n"));
  }

  /**
   * Every ACCELD_* variable the scripts, the launcher, the unit and the code read is a setting or
   * on the quiet list; and the quiet list is what docs/configuration.md tells operators.
   */
  @Test
  void theQuietListIsExactlyTheNonSettingVariablesInUseAndTheDocumentedOnes() throws Exception {
    Set<String> settings = new TreeSet<>();
    Settings.ALL.forEach(s -> settings.add(s.envVar()));
    Set<String> used = new TreeSet<>();
    try (Stream<Path> files =
        Stream.of("deploy", "src/main", "src/build", "native-probes", ".ci")
            .map(Path::of)
            .flatMap(EnvironmentCheckTest::walk)) {
      files
          .filter(Files::isRegularFile)
          .filter(f -> !f.toString().endsWith(".h")) // include guards are no variables
          .forEach(f -> used.addAll(names(read(f))));
    }
    used.addAll(names(Files.readString(Path.of("Dockerfile"))));
    used.removeAll(settings);

    assertThat(used).isEqualTo(new TreeSet<>(EnvironmentCheck.OTHER_VARIABLES));

    String reference = Files.readString(Path.of("docs/configuration.md"));
    String section =
        reference.substring(reference.indexOf("## Environment variables that are not"));
    Set<String> documented = names(section);
    assertThat(documented).isEqualTo(new TreeSet<>(EnvironmentCheck.OTHER_VARIABLES));
  }

  private static Stream<Path> walk(Path root) {
    try {
      return Files.walk(root);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return ""; // a binary file carries no variable names worth checking
    }
  }

  private static Set<String> names(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = NAME.matcher(text);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }
}
