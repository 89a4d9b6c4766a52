package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the kubelet or the API server hands prepare is bounded before it reaches an answer. */
class DraBoundsTest {
  @Test
  void claimIdentitiesAreCheckedForEmptinessLengthAndCharacters() {
    assertThat(ClaimRequests.problem(new ClaimRef("ns", "uid", "name"))).isEmpty();
    assertThat(ClaimRequests.problem(new ClaimRef("ns", "", "name")))
        .hasValueSatisfying(p -> assertThat(p).contains("uid is empty"));
    assertThat(ClaimRequests.problem(new ClaimRef("n".repeat(64), "uid", "name")))
        .hasValueSatisfying(p -> assertThat(p).contains("namespace").contains("at most 63"));
    assertThat(ClaimRequests.problem(new ClaimRef("ns", "uid", "a\u001b[2Jb")))
        .hasValueSatisfying(p -> assertThat(p).contains("outside ASCII").doesNotContain("\u001b"));
  }

  @Test
  void aLookupFailureIsCutAndLosesControlCharacters() {
    String cut = ClaimPreparer.bounded("forbidden\n\u001b[31m" + "x".repeat(5000));
    assertThat(cut).hasSize(ClaimPreparer.MAX_LOOKUP_ERROR).endsWith("...");
    assertThat(cut).doesNotContain("\n", "\u001b");
  }

  @Test
  void aSubrequestAnswersAsItsRequest() {
    assertThat(ClaimPreparer.baseRequest("gpus/big")).isEqualTo("gpus");
    assertThat(ClaimPreparer.baseRequest("gpus")).isEqualTo("gpus");
  }
}
