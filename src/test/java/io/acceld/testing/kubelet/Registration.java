package io.acceld.testing.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * One successful registration of a device plugin, as the kubelet stored it.
 *
 * @param resource the extended resource name
 * @param endpoint the socket the kubelet dialled: the Register endpoint joined to the device-plugin
 *     directory (classic), or {@code PluginInfo.endpoint} / the registry socket (plugin watcher)
 * @param options what {@code GetDevicePluginOptions} returned during registration: the kubelet's
 *     only source of options
 * @param registeredAt when the registration completed
 * @param mode how the plugin registered
 * @param sequence 1 for the resource's first successful registration, 2 for the next, and so on
 *     (counted over the double's whole life, across restarts)
 * @param request the RegisterRequest as sent (classic mode); its {@code options} are ignored by the
 *     kubelet, kept here so tests can check the plugin sends the same values in both places
 * @param registrySocket the plugins_registry socket (plugin-watcher mode)
 */
public record Registration(
    String resource,
    Path endpoint,
    DevicePluginOptions options,
    Instant registeredAt,
    Mode mode,
    int sequence,
    Optional<RegisterRequest> request,
    Optional<Path> registrySocket) {

  /** How a plugin registered. */
  public enum Mode {
    /** {@code Register} on {@code kubelet.sock}. */
    CLASSIC,
    /** A socket in {@code plugins_registry} answering {@code GetInfo}. */
    PLUGIN_WATCHER
  }
}
