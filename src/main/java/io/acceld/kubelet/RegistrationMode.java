package io.acceld.kubelet;

/** How the agent makes the kubelet aware of its servers ({@code --kubelet-registration}). */
public enum RegistrationMode {
  /** Serve in the device-plugins directory and call Register on kubelet.sock. */
  CLASSIC,
  /** Serve in the plugins registry, where the kubelet's plugin watcher finds the socket. */
  PLUGIN_WATCHER,
  /** Serve in the device-plugins directory and tell no one. */
  NONE;

  public static RegistrationMode parse(String value) {
    return switch (value) {
      case "classic" -> CLASSIC;
      case "plugin-watcher" -> PLUGIN_WATCHER;
      case "none" -> NONE;
      default -> throw new IllegalArgumentException("unknown registration mode " + value);
    };
  }
}
