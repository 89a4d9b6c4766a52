package io.acceld.health;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which XIDs do not condemn a GPU. By default the application errors NVIDIA's own plugin ignores
 * (13, 31, 43, 45, 68, 109): a bad kernel, not a bad GPU. Operators add and remove codes.
 */
public record XidPolicy(Set<Integer> ignored) {
  public static final Set<Integer> DEFAULT_IGNORED = Set.of(13, 31, 43, 45, 68, 109);

  public XidPolicy {
    ignored = Set.copyOf(ignored);
  }

  public static XidPolicy of(Collection<Integer> add, Collection<Integer> remove) {
    Set<Integer> codes = new TreeSet<>(DEFAULT_IGNORED);
    codes.addAll(add);
    codes.removeAll(remove);
    return new XidPolicy(codes);
  }

  public boolean isIgnored(int xid) {
    return ignored.contains(xid);
  }
}
