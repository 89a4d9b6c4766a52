package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.DcgmModelLabel;
import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README is where an operator starts: its commands work as written, every flag it names is one
 * acceld has, and it leads to the two references, which their own tests keep exact
 * (ConfigurationReferenceTest, MetricsReferenceIT).
 */
class ReadmeTest {
  private static final Pattern FLAG = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]+");

  /** Flags of other programs the README shows: helm install --set, docker build --build-arg. */
  private static final Set<String> OTHER_PROGRAMS = Set.of("--set", "--build-arg");

  /** The release's install.sh, whose options (--no-start, --mesos) the README shows too. */
  private static final Pattern INSTALL_OPTION = Pattern.compile("(?m)^\\s*(--[a-z][a-z0-9-]+)\\)");

  private static String readme() throws Exception {
    return Files.readString(Path.of("README.md"));
  }

  @Test
  void theReadmeLeadsToBothReferencesAndItsCommandsAreTheTestedOnes() throws Exception {
    assertThat(readme())
        .contains("(docs/configuration.md)", "(docs/metrics.md)")
        .contains("./mvnw -B verify")
        .contains("java -jar target/acceld.jar devices --simulate");
    assertThat(Path.of("docs/configuration.md")).isRegularFile();
    assertThat(Path.of("docs/metrics.md")).isRegularFile();
  }

  @Test
  void everyFlagTheReadmeNamesIsOneAcceldHas() throws Exception {
    Set<String> known = new TreeSet<>();
    for (String command :
        List.of("devices", "run", "doctor", "kubelet-probe", "version", "completion")) {
      CliTest.Run help = CliTest.run(Map.of(), "help", command);
      assertThat(help.exit()).as(command).isZero();
      known.addAll(flags(help.out()));
    }
    known.addAll(flags(CliTest.run(Map.of(), "--help").out()));
    Matcher install =
        INSTALL_OPTION.matcher(Files.readString(Path.of("deploy/release/install.sh")));
    while (install.find()) {
      known.add(install.group(1));
    }

    Set<String> unknown = flags(readme());
    unknown.removeAll(known);
    unknown.removeAll(OTHER_PROGRAMS);
    assertThat(unknown).as("flags in README.md that no acceld command has").isEmpty();
  }

  @Test
  void itSaysHowToGetDcgmExportersExactModelNameLabel() throws Exception {
    assertThat(readme()).contains("For dcgm-exporter's exact `modelName` label");
    Matcher m = Pattern.compile("`--dcgm-model-label=(\\w+)`").matcher(readme());
    assertThat(m.find()).isTrue();
    assertThat(Settings.DCGM_MODEL_LABEL.parser().parse(m.group(1)))
        .isEqualTo(DcgmModelLabel.DCGM_EXPORTER);
    assertThat(DcgmModelLabel.DCGM_EXPORTER.word()).isEqualTo("modelName");
  }

  @Test
  void troubleshootingCoversTenProblemsEachWithWhatAcceldDoesAndWhatToCheck() throws Exception {
    String readme = readme();
    String section =
        readme.substring(readme.indexOf("## Troubleshooting"), readme.indexOf("## Layout"));
    List<String> entries = List.of(section.split("\n(?=\\d+\\. \\*\\*)"));

    assertThat(entries.subList(1, entries.size()))
        .hasSize(10)
        .allSatisfy(e -> assertThat(e).contains("*acceld:*", "*Check:*"));
    assertThat(section)
        .contains("never recovers after an XID")
        .contains("One failure marks every GPU unhealthy")
        .contains("after a plugin or kubelet restart")
        .contains("CDI confusion")
        .contains("no pod, namespace or container labels");
  }

  private static Set<String> flags(String text) {
    Set<String> flags = new TreeSet<>();
    Matcher m = FLAG.matcher(text);
    while (m.find()) {
      flags.add(m.group());
    }
    return flags;
  }
}
