package io.acceld.cli;

import io.acceld.config.Setting;
import io.acceld.config.Settings;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Adds one picocli option per {@link Setting} to a command, and reads back the ones the user gave.
 * Options carry no defaults here: defaults are applied by the config loader, below env and file.
 */
final class SettingOptions {
  private SettingOptions() {}

  static void addTo(CommandSpec spec) {
    addTo(spec, Settings.ALL);
  }

  /** Only {@code settings}: a command's help lists what it uses, not every knob of the agent. */
  static void addTo(CommandSpec spec, java.util.List<Setting<?>> settings) {
    for (Setting<?> setting : settings) {
      OptionSpec.Builder option =
          OptionSpec.builder(setting.flag())
              .paramLabel(setting.paramLabel())
              .type(String.class)
              .description(
                  setting.description()
                      + " Env "
                      + setting.envVar()
                      + "; default "
                      + setting.defaultShown()
                      + ".");
      if (setting.isSwitch()) {
        option.arity("0..1").fallbackValue("true");
      } else {
        option.arity("1");
      }
      spec.addOption(option.build());
    }
  }

  /** Raw values of the setting flags present on the command line, by setting key. */
  static Map<String, String> given(ParseResult result) {
    Map<String, String> given = new HashMap<>();
    for (Setting<?> setting : Settings.ALL) {
      if (result.commandSpec().findOption(setting.flag()) != null
          && result.hasMatchedOption(setting.flag())) {
        given.put(setting.key(), result.matchedOptionValue(setting.flag(), ""));
      }
    }
    return given;
  }
}
