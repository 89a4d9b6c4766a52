package io.acceld.chaos;

import java.util.Random;

/**
 * A chaos suite's seed: {@code -Dacceld.chaosSeed=N} replays a run, otherwise a fresh one. Printed
 * at the start and named in every failure message built with {@link #tag}, so a failing run can be
 * replayed exactly.
 */
record ChaosSeed(String suite, long seed) {
  static ChaosSeed of(String suite) {
    ChaosSeed s = new ChaosSeed(suite, Long.getLong("acceld.chaosSeed", System.nanoTime()));
    System.out.println(
        suite + " seed " + s.seed + " (replay with -Dacceld.chaosSeed=" + s.seed + ")");
    return s;
  }

  Random random() {
    return new Random(seed);
  }

  /** {@code what}, with the suite and seed for the failure message. */
  String tag(String what) {
    return suite + " seed " + seed + ", " + what;
  }
}
