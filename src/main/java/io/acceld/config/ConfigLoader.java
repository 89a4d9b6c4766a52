package io.acceld.config;

import io.acceld.config.AgentConfig.Resolved;
import io.acceld.config.AgentConfig.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves the configuration from its four sources with the precedence flag &gt; env &gt; file &gt;
 * default. Every error names its source: the flag, the env var, or the file with the line and key.
 *
 * <p>Precedence is all this class decides. Reading the file is {@link ConfigFileContents}'s job
 * (with {@link YamlConfigFile}, {@link RulesSection} and {@link ResourcesSection}); each value's
 * syntax is its {@link Setting}'s parser.
 */
public final class ConfigLoader {
  /** Read only when it exists; naming a file explicitly makes it required. */
  public static final Path DEFAULT_CONFIG_FILE = Path.of("/etc/acceld/config.yaml");

  public static final String CONFIG_ENV = "ACCELD_CONFIG";

  private ConfigLoader() {}

  /**
   * @param flags raw flag values by setting key, only for flags given on the command line
   * @param env the process environment
   * @param configFlag the {@code --config} flag, if given
   */
  public static AgentConfig load(
      Map<String, String> flags, Map<String, String> env, Optional<Path> configFlag) {
    Optional<Path> file = chooseFile(env, configFlag);
    ConfigFileContents contents =
        file.map(ConfigFileContents::read).orElse(ConfigFileContents.NONE);

    Map<Setting<?>, Resolved> values = new HashMap<>();
    for (Setting<?> setting : Settings.ALL) {
      values.put(setting, resolve(setting, flags, env, contents));
    }
    return new AgentConfig(values, contents.rules(), contents.sharing(), file, env);
  }

  private static Optional<Path> chooseFile(Map<String, String> env, Optional<Path> configFlag) {
    if (configFlag.isPresent()) {
      return configFlag;
    }
    String fromEnv = env.get(CONFIG_ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(Path.of(fromEnv));
    }
    return Files.isRegularFile(DEFAULT_CONFIG_FILE)
        ? Optional.of(DEFAULT_CONFIG_FILE)
        : Optional.empty();
  }

  private static Resolved resolve(
      Setting<?> setting,
      Map<String, String> flags,
      Map<String, String> env,
      ConfigFileContents contents) {
    String flag = flags.get(setting.key());
    if (flag != null) {
      return new Resolved(parse(setting, flag, "flag " + setting.flag()), Source.FLAG);
    }
    String fromEnv = env.get(setting.envVar());
    if (fromEnv != null) {
      return new Resolved(
          parse(setting, fromEnv, "environment variable " + setting.envVar()), Source.ENV);
    }
    ConfigFileContents.FileValue fromFile = contents.settings().get(setting.key());
    if (fromFile != null) {
      return new Resolved(parse(setting, fromFile.text(), fromFile.where()), Source.FILE);
    }
    if (setting.defaultText() == null) {
      return new Resolved(Optional.empty(), Source.DEFAULT);
    }
    return new Resolved(
        parse(setting, setting.defaultText(), "default of " + setting.key()), Source.DEFAULT);
  }

  private static Object parse(Setting<?> setting, String raw, String where) {
    try {
      return setting.parser().parse(raw);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }
}
