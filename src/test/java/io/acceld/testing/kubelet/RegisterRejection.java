package io.acceld.testing.kubelet;

import java.time.Instant;

/**
 * A registration the kubelet refused.
 *
 * @param mode how the plugin tried to register
 * @param resource the resource name it asked for (empty when GetInfo failed)
 * @param endpoint the endpoint it named, or the registry socket in plugin-watcher mode
 * @param message the kubelet's error text: the Register status description (classic) or the
 *     NotifyRegistrationStatus / log text (plugin watcher)
 * @param at when it was refused
 */
public record RegisterRejection(
    Registration.Mode mode, String resource, String endpoint, String message, Instant at) {}
