package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.scheduler.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;

/**
 * One framework the master knows: its info, its subscription if connected, and what it asked about
 * offers (suppressed roles, decline filters). Mutable, touched only with the master's lock held.
 */
final class Framework {
  final FrameworkID id;
  FrameworkInfo info;
  Optional<Subscription> subscription = Optional.empty();
  final Set<String> suppressedRoles = new LinkedHashSet<>();
  final List<DeclineFilter> filters = new ArrayList<>();

  /** The teardown scheduled when it disconnected, cancelled when it re-subscribes. */
  ScheduledFuture<?> failover;

  Framework(FrameworkID id, FrameworkInfo info) {
    this.id = id;
    this.info = info;
  }

  boolean has(FrameworkInfo.Capability.Type capability) {
    return info.getCapabilitiesList().stream().anyMatch(c -> c.getType() == capability);
  }

  /** Its roles: {@code roles} for a MULTI_ROLE framework, else the (deprecated) single role. */
  List<String> roles() {
    if (has(FrameworkInfo.Capability.Type.MULTI_ROLE) && info.getRolesCount() > 0) {
      return info.getRolesList();
    }
    return List.of(info.getRole());
  }

  /** The first role it has not suppressed, which its next offer is allocated to. */
  Optional<String> offerableRole() {
    return roles().stream().filter(r -> !suppressedRoles.contains(r)).findFirst();
  }

  boolean isConnected() {
    return subscription.isPresent();
  }

  /** Whether a live filter holds {@code candidate} back; expired filters are dropped. */
  boolean filtered(Quantities candidate, Instant now) {
    filters.removeIf(f -> !now.isBefore(f.until()));
    return filters.stream().anyMatch(f -> f.holdsBack(candidate, now));
  }

  /** Sends {@code event} down its subscription; dropped while it is disconnected. */
  void send(Event event) {
    subscription.ifPresent(s -> s.send(event));
  }

  String name() {
    return id.getValue();
  }
}
