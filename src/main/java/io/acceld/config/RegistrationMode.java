package io.acceld.config;

import java.util.List;

/**
 * How the agent makes the kubelet aware of its servers ({@code --kubelet-registration}). A config
 * type rather than a kubelet one so the setting can hold it: the kubelet publisher reads the value
 * and never parses the word again.
 */
public enum RegistrationMode {
  /** Serve in the device-plugins directory and call Register on kubelet.sock. */
  CLASSIC("classic"),
  /** Serve in the plugins registry, where the kubelet's plugin watcher finds the socket. */
  PLUGIN_WATCHER("plugin-watcher"),
  /** Serve in the device-plugins directory and tell no one. */
  NONE("none");

  private final String word;

  RegistrationMode(String word) {
    this.word = word;
  }

  /** How the operator writes it. */
  public String word() {
    return word;
  }

  @Override
  public String toString() {
    return word;
  }

  static ValueParser<RegistrationMode> parser() {
    return Parsers.choice(List.of(values()), RegistrationMode::word);
  }
}
