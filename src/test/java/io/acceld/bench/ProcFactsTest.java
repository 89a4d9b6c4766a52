package io.acceld.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.bench.ProcFacts.ThreadCpu;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcFactsTest {
  @Test
  void aCompilerThreadReplacedInTheWindowCountsTheNewOnesTimeNotANegativeDifference() {
    Map<Long, ThreadCpu> before =
        Map.of(
            10L, new ThreadCpu("C1 CompilerThre", 40_000_000, 90),
            11L, new ThreadCpu("acceld-presence", 5_000_000, 10));
    Map<Long, ThreadCpu> after =
        Map.of(
            12L, new ThreadCpu("C1 CompilerThre", 3_000_000, 4),
            11L, new ThreadCpu("acceld-presence", 15_000_000, 40));

    assertThat(ProcFacts.busiest(before, after))
        .isEqualTo("acceld-presence 10.0/30, C1 CompilerThre 3.0/4");
  }

  @Test
  void sameNamedThreadsAreSummedAndThreadsThatDidNotRunAreLeftOut() {
    Map<Long, ThreadCpu> before =
        Map.of(
            1L, new ThreadCpu("pool", 1_000_000, 1),
            2L, new ThreadCpu("pool", 1_000_000, 1),
            3L, new ThreadCpu("sleeper", 7_000_000, 7));
    Map<Long, ThreadCpu> after =
        Map.of(
            1L, new ThreadCpu("pool", 2_500_000, 3),
            2L, new ThreadCpu("pool", 2_000_000, 2),
            3L, new ThreadCpu("sleeper", 7_000_000, 7));

    assertThat(ProcFacts.busiest(before, after)).isEqualTo("pool 2.5/3");
  }
}
