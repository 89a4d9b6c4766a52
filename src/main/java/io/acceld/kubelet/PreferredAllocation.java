package io.acceld.kubelet;

import java.util.List;

/**
 * Chooses devices for GetPreferredAllocation. Implementations must never return IDs outside {@code
 * available}.
 */
@FunctionalInterface
public interface PreferredAllocation {
  List<String> choose(
      ResourceView view, List<String> available, List<String> mustInclude, int size);
}
