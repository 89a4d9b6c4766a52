package io.acceld.config;

import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds {@code ACCELD_*} environment variables that no setting reads. A misspelt variable (a letter
 * short of {@code --sysfs-root}'s) would otherwise be silently ignored and the agent would run on a
 * default the operator thought they had changed. It is a warning, not an error: the environment is
 * shared with the launcher, the install scripts and other tools, and refusing to start over a stray
 * variable would take a node's GPUs out of service for nothing.
 */
public final class EnvironmentCheck {
  static final String PREFIX = "ACCELD_";

  /**
   * {@code ACCELD_*} variables that are not settings but are read by the agent, the launcher, the
   * install and build scripts, CI or the NVML test double (docs/configuration.md lists them).
   */
  public static final Set<String> OTHER_VARIABLES =
      Set.of(
          ConfigLoader.CONFIG_ENV,
          "ACCELD_JAVA",
          "ACCELD_JAR",
          "ACCELD_JVM_FLAGS",
          "ACCELD_JVM_EXTRA_FLAGS",
          "ACCELD_ARGS",
          "ACCELD_NATIVE_PROBES",
          "ACCELD_FAKE_NVML_SCENARIO",
          "ACCELD_FAKE_NVML_CONTROL",
          "ACCELD_SKIP_CDS",
          "ACCELD_RELEASE_DEB",
          "ACCELD_TRAINING_PORT",
          "ACCELD_REVISION",
          "ACCELD_CI_TOOLS");

  private EnvironmentCheck() {}

  /** The settings' variables and ACCELD_CONFIG: what an operator sets by hand and may misspell. */
  private static List<String> suggestable(List<String> settings) {
    List<String> names = new ArrayList<>(settings);
    names.add(ConfigLoader.CONFIG_ENV);
    return names;
  }

  /**
   * One warning per {@code ACCELD_*} variable in {@code env} that nothing reads, sorted by name,
   * each naming the variable and the closest setting's variable when one is near.
   */
  public static List<String> warnings(Map<String, String> env) {
    List<String> known = new ArrayList<>();
    Settings.ALL.forEach(s -> known.add(s.envVar()));
    Set<String> unknown = new TreeSet<>();
    for (String name : env.keySet()) {
      if (name.startsWith(PREFIX) && !known.contains(name) && !OTHER_VARIABLES.contains(name)) {
        unknown.add(name);
      }
    }
    List<String> warnings = new ArrayList<>();
    for (String name : unknown) {
      String hint = Suggestions.didYouMean(name, suggestable(known));
      warnings.add(
          "environment variable "
              + ClientText.quote(name)
              + " matches no setting and is ignored"
              + (hint.isEmpty() ? " (acceld help run lists the settings)" : hint));
    }
    return warnings;
  }
}
