package io.acceld.kubelet;

import io.acceld.config.AgentConfig;
import io.acceld.config.RegistrationMode;
import io.acceld.config.Settings;
import io.acceld.config.SharingPolicy;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Everything the kubelet publisher reads from the configuration, read once: where the sockets go,
 * how to register, what Allocate hands out, and the options every server advertises.
 *
 * @param mode how the kubelet learns of our servers
 * @param pluginDir the kubelet's device-plugin directory, home of {@code kubelet.sock}
 * @param registryDir the kubelet's plugins registry (plugin-watcher mode)
 * @param hostDevPrefix where device nodes are on the host
 * @param passDeviceSpecs whether Allocate returns device specs
 * @param cdiDir where CDI specs are written, if CDI is on
 * @param options what GetDevicePluginOptions (and RegisterRequest) say
 * @param sharing each inventory resource's sharing policy
 */
record KubeletSettings(
    RegistrationMode mode,
    Path pluginDir,
    Path registryDir,
    Path hostDevPrefix,
    boolean passDeviceSpecs,
    Optional<Path> cdiDir,
    DevicePluginOptions options,
    Function<String, SharingPolicy> sharing) {

  public static final String KUBELET_SOCKET = "kubelet.sock";

  static KubeletSettings from(AgentConfig config) {
    return new KubeletSettings(
        config.get(Settings.KUBELET_REGISTRATION),
        config.get(Settings.DEVICE_PLUGIN_DIR),
        config.get(Settings.PLUGINS_REGISTRY_DIR),
        config.get(Settings.HOST_DEV_PREFIX),
        config.get(Settings.PASS_DEVICE_SPECS),
        config.get(Settings.CDI) ? Optional.of(config.get(Settings.CDI_DIR)) : Optional.empty(),
        DevicePluginOptions.newBuilder()
            .setPreStartRequired(config.get(Settings.PRE_START_REQUIRED))
            .setGetPreferredAllocationAvailable(true)
            .build(),
        config::sharing);
  }

  /** The kubelet's registration socket (classic mode). */
  Path kubeletSocket() {
    return pluginDir.resolve(KUBELET_SOCKET);
  }

  /** Where our own sockets go: the plugins registry with the plugin watcher, else pluginDir. */
  Path socketDir() {
    return mode == RegistrationMode.PLUGIN_WATCHER ? registryDir : pluginDir;
  }

  /** The socket of the server advertising {@code advertisedName}. */
  Path socketOf(String advertisedName) {
    return socketDir().resolve(socketName(advertisedName));
  }

  /**
   * The directories whose changes can mean a kubelet restart: our sockets' directory and, in
   * classic mode, the one holding {@code kubelet.sock}.
   */
  List<Path> watchedDirs() {
    List<Path> dirs = new ArrayList<>(List.of(socketDir()));
    if (mode == RegistrationMode.CLASSIC && !socketDir().equals(pluginDir)) {
      dirs.add(pluginDir);
    }
    return List.copyOf(dirs);
  }

  /** How Allocate renders a device set under these settings. */
  AllocationResponder responder() {
    return new AllocationResponder(
        hostDevPrefix,
        passDeviceSpecs,
        cdiDir.isPresent() ? Optional.of(CdiSpecWriter.names()) : Optional.empty());
  }

  /** A stable socket file name for a resource: {@code acceld-nvidia.com_gpu.sock}. */
  static String socketName(String advertisedName) {
    return "acceld-" + advertisedName.replace('/', '_') + ".sock";
  }
}
