package io.acceld.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates the settings table of docs/configuration.md from {@link Settings#ALL}, so the reference
 * has every setting with its flag, env var, YAML key and default and never drifts from the code.
 * ConfigurationReferenceTest compares; run {@code ./mvnw -B -q test
 * -Dtest=ConfigurationReferenceTest -Dacceld.regenerate=true} to rewrite the table. The prose
 * around the markers is hand-written.
 */
final class ConfigurationReference {
  static final Path FILE = Path.of("docs/configuration.md");
  static final String BEGIN =
      "<!-- BEGIN generated from io.acceld.config.Settings: do not edit by hand;"
          + " regenerate with -Dacceld.regenerate=true -->";
  static final String END = "<!-- END generated -->";

  private ConfigurationReference() {}

  /** The lines between BEGIN and END: one table row per setting, in the table's order. */
  static List<String> table() {
    List<String> lines = new ArrayList<>();
    lines.add("| flag | environment variable | YAML key | default | meaning |");
    lines.add("|---|---|---|---|---|");
    for (Setting<?> s : Settings.ALL) {
      String flag =
          s.isSwitch() ? s.flag() + "[=" + s.paramLabel() + "]" : s.flag() + " " + s.paramLabel();
      String dflt = s.defaultShown().equals("(none)") ? "(none)" : code(s.defaultShown());
      lines.add(
          "| "
              + String.join(
                  " | ",
                  code(flag),
                  code(s.envVar()),
                  code(s.key()),
                  dflt,
                  s.description().replace("|", "\\|"))
              + " |");
    }
    return lines;
  }

  private static String code(String text) {
    return "`" + text + "`";
  }

  static String regenerated(String current) {
    List<String> lines = new ArrayList<>(current.lines().toList());
    int begin = lines.indexOf(BEGIN);
    int end = lines.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException(FILE + " lacks the generated-table markers");
    }
    List<String> out = new ArrayList<>(lines.subList(0, begin + 1));
    out.addAll(table());
    out.addAll(lines.subList(end, lines.size()));
    return String.join("\n", out) + "\n";
  }

  static void regenerate() throws Exception {
    Files.writeString(FILE, regenerated(Files.readString(FILE)));
  }
}
