package io.acceld.agent;

import io.acceld.config.AgentConfig;
import io.acceld.config.DeviceExpectation;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import io.acceld.inventory.Inventory;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedSet;
import java.util.StringJoiner;
import java.util.TreeSet;

/**
 * The one line the agent logs once it has looked at the node: its version, every setting in effect
 * with where it came from, and what it found per resource, "0 devices" included. An operator
 * reading a node's logs then sees at a glance which flag, env var or file line made the agent do
 * what it did, and whether it saw the GPUs.
 */
public final class StartupReport {
  private StartupReport() {}

  public static String line(String version, AgentConfig config, Inventory inventory) {
    StringJoiner settings = new StringJoiner(", ");
    for (Setting<?> setting : Settings.ALL) {
      settings.add(
          setting.key()
              + "="
              + shown(setting, config.get(setting))
              + " ("
              + config.sourceOf(setting).name().toLowerCase(Locale.ROOT)
              + ")");
    }
    SortedSet<String> resources = new TreeSet<>(inventory.resources());
    for (DeviceExpectation e : config.get(Settings.EXPECT_DEVICES)) {
      resources.add(e.resource());
    }
    StringJoiner found = new StringJoiner(", ");
    for (String resource : resources) {
      found.add(resource + ": " + devices(inventory.devicesOf(resource).size()));
    }
    return "acceld "
        + version
        + " started; settings: "
        + settings
        + config.configFile().map(f -> "; config file " + f).orElse("")
        + "; found: "
        + (resources.isEmpty() ? "0 devices" : found.toString());
  }

  static String devices(int n) {
    return n + (n == 1 ? " device" : " devices");
  }

  /**
   * An unset optional value as its setting spells "nothing" ({@code forever} for the quarantine,
   * whose default it is), else {@code (none)}: the quarantine's word used to stand for every empty
   * value, so the log said {@code mesos-address=forever}.
   */
  private static String shown(Setting<?> setting, Object value) {
    if (value instanceof Optional<?> o && o.isEmpty()) {
      String spelled = setting.defaultText();
      boolean defaultIsNothing =
          spelled != null && !spelled.isEmpty() && setting.parser().parse(spelled).equals(o);
      return defaultIsNothing ? spelled : "(none)";
    }
    return shown(value);
  }

  /** A value as an operator would write it: {@code 30s}, not {@code PT30S}. */
  private static String shown(Object value) {
    String text;
    if (value instanceof Collection<?> c) {
      text = String.join(",", c.stream().map(StartupReport::shown).toList());
    } else if (value instanceof Optional<?> o) {
      text = o.map(StartupReport::shown).orElse("");
    } else if (value instanceof Duration d) {
      text = duration(d);
    } else {
      text = String.valueOf(value);
    }
    return text.isEmpty() ? "(none)" : text;
  }

  private static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0";
    } else if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    } else if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    } else if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
