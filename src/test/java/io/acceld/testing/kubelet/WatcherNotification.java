package io.acceld.testing.kubelet;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * A {@code NotifyRegistrationStatus} the double's plugin watcher sent.
 *
 * @param socket the plugins_registry socket it was sent to
 * @param registered the {@code plugin_registered} field
 * @param error the {@code error} field (empty on success)
 * @param at when it was sent
 * @param failure why the call itself failed, if it did (grpc-go text)
 */
public record WatcherNotification(
    Path socket, boolean registered, String error, Instant at, Optional<String> failure) {}
