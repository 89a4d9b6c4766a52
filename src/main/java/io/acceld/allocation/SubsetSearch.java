package io.acceld.allocation;

/**
 * Picks a best set of units under a {@link ScoreTable}'s objective. The best set is the one with
 * the highest objective and, among equals, the lexicographically smallest ascending index list.
 * Because units are indexed in ID order, that is the smallest sorted ID list.
 */
interface SubsetSearch {

  /**
   * @param table the objective over units 0..n-1
   * @param fixed ascending units that must be in the set
   * @param size the set size, with {@code fixed.length <= size <= n}
   * @return the chosen units, ascending, containing every fixed unit
   */
  int[] best(ScoreTable table, int[] fixed, int size);
}
