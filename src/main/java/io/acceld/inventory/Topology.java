package io.acceld.inventory;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Pairwise closeness of the node's devices: PCIe level and NVLink count, keyed by device ID. The
 * relation is symmetric; a pair never recorded is {@link PcieLevel#UNKNOWN} with no NVLinks.
 */
public final class Topology {
  public static final Topology EMPTY = builder().build();

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
  // A dense index of the same pairs: GetPreferredAllocation reads thousands of pairs per request,
  // and a lookup here must not build a key string each time.
  private final Map<String, Integer> indexById;
  private final Link[] matrix;

  private Topology(Map<String, Link> links, Map<String, Integer> indexById, Link[] matrix) {
    this.links = Map.copyOf(links);
    this.indexById = Map.copyOf(indexById);
    this.matrix = matrix;
  }

  public Link link(String idA, String idB) {
    Integer a = indexById.get(idA);
    Integer b = indexById.get(idB);
    if (a == null || b == null) {
      return NONE;
    }
    Link link = matrix[a * indexById.size() + b];
    return link == null ? NONE : link;
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
      Map<String, Integer> index = new HashMap<>();
      links.keySet().stream()
          .flatMap(
              k ->
                  java.util.stream.Stream.of(
                      k.substring(0, k.indexOf('|')), k.substring(k.indexOf('|') + 1)))
          .sorted()
          .forEach(id -> index.putIfAbsent(id, index.size()));
      int n = index.size();
      Link[] matrix = new Link[n * n];
      links.forEach(
          (k, link) -> {
            int a = index.get(k.substring(0, k.indexOf('|')));
            int b = index.get(k.substring(k.indexOf('|') + 1));
            matrix[a * n + b] = link;
            matrix[b * n + a] = link;
          });
      return new Topology(links, index, matrix);
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
