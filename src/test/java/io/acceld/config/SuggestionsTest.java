package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestionsTest {
  private static final List<String> KNOWN = List.of("sysfs-root", "dev-root", "rules");

  @Test
  void suggestsTheClosestKeyWithinThreeEdits() {
    assertThat(Suggestions.didYouMean("sysfs-rot", KNOWN))
        .isEqualTo(" (did you mean 'sysfs-root'?)");
    assertThat(Suggestions.didYouMean("rulez", KNOWN)).isEqualTo(" (did you mean 'rules'?)");
    assertThat(Suggestions.didYouMean("devroot", KNOWN)).isEqualTo(" (did you mean 'dev-root'?)");
  }

  @Test
  void suggestsNothingForAKeyFarFromEveryKnownOne() {
    assertThat(Suggestions.didYouMean("telemetry", KNOWN)).isEmpty();
    assertThat(Suggestions.didYouMean("x", List.of())).isEmpty();
  }

  @Test
  void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
    assertThat(Suggestions.editDistance("kitten", "sitting")).isEqualTo(3);
    assertThat(Suggestions.editDistance("", "abc")).isEqualTo(3);
    assertThat(Suggestions.editDistance("same", "same")).isZero();
  }
}
