package io.acceld.config;

import java.util.List;

/** "Did you mean" hints for misspelt keys: the closest known key within a few edits. */
final class Suggestions {
  /** Further than this, a "suggestion" is more likely to mislead than help. */
  private static final int MAX_DISTANCE = 3;

  private Suggestions() {}

  /**
   * {@code " (did you mean 'sysfs-root'?)"} for {@code sysfs-rot}, or an empty string when no known
   * key is close. Ties go to the earlier key in {@code known}.
   */
  static String didYouMean(String key, List<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : known) {
      int d = editDistance(key, candidate);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    return best != null && bestDistance <= MAX_DISTANCE ? " (did you mean '" + best + "'?)" : "";
  }

  /** Levenshtein distance, two rows at a time. */
  static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
