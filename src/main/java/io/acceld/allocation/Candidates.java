package io.acceld.allocation;

import java.util.List;
import java.util.TreeSet;

/**
 * A request as the allocator uses it: {@code available} sorted and deduplicated, {@code
 * mustInclude} reduced to the IDs that are actually available (also sorted and deduplicated).
 *
 * <p>The kubelet builds both lists from sets, so duplicates should not happen, and it intersects
 * our answer with {@code available} anyway; but a must-include ID that is not available cannot be
 * returned, and dropping it is the only answer that keeps the result inside {@code available}.
 * String order is used throughout because it is the deterministic order the tie-break is defined on
 * ({@code gpu10} sorts before {@code gpu2}; any total order would do, this one needs no parsing).
 */
record Candidates(List<String> available, List<String> mustInclude, int size) {

  static Candidates of(PreferredAllocator.Request request) {
    TreeSet<String> available = new TreeSet<>(request.available());
    TreeSet<String> must = new TreeSet<>();
    for (String id : request.mustInclude()) {
      if (available.contains(id)) {
        must.add(id);
      }
    }
    return new Candidates(List.copyOf(available), List.copyOf(must), request.size());
  }
}
