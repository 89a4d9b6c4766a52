package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.Settings;
import io.acceld.testing.Command;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bash completion script: generated, parsed by bash, and completing as an operator types. */
class CompletionTest {
  @TempDir Path dir;

  private Path script() throws Exception {
    CliTest.Run run = CliTest.run(Map.of(), "completion", "bash");
    assertThat(run.exit()).as(run.err()).isZero();
    Path script = dir.resolve("acceld.bash");
    Files.writeString(script, run.out());
    return script;
  }

  /** What bash offers for {@code line} (the word under the cursor is the last one). */
  private static String complete(Path script, String line) {
    String words = line.endsWith(" ") ? line + "''" : line;
    String bash =
        "source \""
            + script
            + "\"; COMP_LINE='"
            + line
            + "'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=("
            + words
            + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _complete_acceld acceld"
            + " \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\" 2>/dev/null;"
            + " printf '%s\\n' \"${COMPREPLY[@]}\"";
    return Command.run(Path.of("."), Map.of(), List.of("bash", "-c", bash)).ok();
  }

  @Test
  void theScriptParsesAndRegistersForAcceld() throws Exception {
    Path script = script();

    assertThat(Command.run(dir, "bash", "-n", script.toString()).ok()).isEmpty();
    assertThat(
            Command.run(
                    dir,
                    Map.of(),
                    List.of("bash", "-c", "source \"" + script + "\" && complete -p acceld"))
                .ok())
        .contains("-F _complete_acceld");
  }

  @Test
  void itCompletesCommandsAndEverySettingsFlag() throws Exception {
    Path script = script();

    assertThat(complete(script, "acceld ru").lines()).containsExactly("run");
    assertThat(complete(script, "acceld kubelet").lines()).containsExactly("kubelet-probe");
    assertThat(complete(script, "acceld doc").lines()).containsExactly("doctor");
    assertThat(complete(script, "acceld doctor --ag").lines()).containsExactly("--agent");
    assertThat(complete(script, "acceld doctor --mesos-add").lines())
        .as("doctor takes every setting run takes")
        .containsExactly("--mesos-address");
    assertThat(complete(script, "acceld run --sysfs-r").lines()).containsExactly("--sysfs-root");
    assertThat(complete(script, "acceld devices --sta").lines()).containsExactly("--state-dir");
    assertThat(complete(script, "acceld devices --mesos").strip())
        .as("devices offers only the settings it uses")
        .isEmpty();
    String all = complete(script, "acceld run --");
    Settings.ALL.forEach(s -> assertThat(all.lines()).as(s.key()).contains(s.flag()));
  }

  @Test
  void anUnknownShellIsAUsageErrorNamingTheChoices() {
    CliTest.Run run = CliTest.run(Map.of(), "completion", "fish");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("fish").contains("bash").contains("zsh");
  }
}
