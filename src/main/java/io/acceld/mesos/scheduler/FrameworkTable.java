package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.FrameworkID;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The frameworks the master knows, in the order they first subscribed, and the IDs of those torn
 * down. Not thread-safe: the master's one lock guards it, as it guards each {@link Framework}. It
 * is its own class so that the parts reading it (offers, ACCEPT, KILL) need not hold the part that
 * changes it ({@link FrameworkRegistry}).
 */
final class FrameworkTable {
  private final Map<String, Framework> frameworks = new LinkedHashMap<>();

  /** Frameworks torn down: they may not subscribe again (Mesos: "Framework has been removed"). */
  private final Set<String> removed = new HashSet<>();

  /** The framework, or null if it is not known (never was, or torn down). */
  Framework get(FrameworkID id) {
    return frameworks.get(id.getValue());
  }

  boolean contains(String id) {
    return frameworks.containsKey(id);
  }

  void add(Framework fw) {
    frameworks.put(fw.id.getValue(), fw);
  }

  /** Forgets the framework for good: it may not subscribe again. Null if it was not known. */
  Framework remove(FrameworkID id) {
    Framework fw = frameworks.remove(id.getValue());
    if (fw != null) {
      removed.add(id.getValue());
    }
    return fw;
  }

  boolean wasRemoved(String id) {
    return removed.contains(id);
  }

  /** A view, in subscription order; copy it to keep it past the lock. */
  Collection<Framework> all() {
    return Collections.unmodifiableCollection(frameworks.values());
  }

  int size() {
    return frameworks.size();
  }
}
