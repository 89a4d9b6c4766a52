package io.acceld.inventory;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Pairwise closeness of the node's devices: PCIe level and NVLink count, keyed by device ID. The
 * relation is symmetric; a pair never recorded is {@link PcieLevel#UNKNOWN} with no NVLinks.
 */
public final class Topology {
  public static final Topology EMPTY = new Topology(Map.of());

  /** One pair's connection. */
  public record Link(PcieLevel level, int nvlinks) {
    public Link {
      Objects.requireNonNull(level, "level");
      if (nvlinks < 0) {
        throw new IllegalArgumentException("nvlinks must be >= 0");
      }
    }
  }

  private static final Link NONE = new Link(PcieLevel.UNKNOWN, 0);

  private final Map<String, Link> links;

  private Topology(Map<String, Link> links) {
    this.links = Map.copyOf(links);
  }

  public Link link(String idA, String idB) {
    return links.getOrDefault(key(idA, idB), NONE);
  }

  public PcieLevel level(String idA, String idB) {
    return link(idA, idB).level();
  }

  public int nvlinks(String idA, String idB) {
    return link(idA, idB).nvlinks();
  }

  public int size() {
    return links.size();
  }

  private static String key(String a, String b) {
    return a.compareTo(b) <= 0 ? a + '|' + b : b + '|' + a;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Collects pairs; a later put for the same pair replaces the earlier one. */
  public static final class Builder {
    private final Map<String, Link> links = new HashMap<>();

    public Builder put(String idA, String idB, PcieLevel level, int nvlinks) {
      if (idA.equals(idB)) {
        throw new IllegalArgumentException("a device has no link to itself: " + idA);
      }
      links.put(key(idA, idB), new Link(level, nvlinks));
      return this;
    }

    public Topology build() {
      return new Topology(links);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Topology other && links.equals(other.links);
  }

  @Override
  public int hashCode() {
    return links.hashCode();
  }

  @Override
  public String toString() {
    return "Topology" + links;
  }
}
