package io.acceld.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import org.junit.jupiter.api.Test;

class RecordMethodsWarmUpTest {
  @Test
  void theRecordMethodsAnswerAsTheyMust() {
    assertThat(RecordMethodsWarmUp.run()).isTrue();
  }

  /** It runs beside the agent's start and must not stay: an idle agent's threads are counted. */
  @Test
  void itsThreadEndsOnceDone() {
    RecordMethodsWarmUp.start();

    Eventually.await(
        "the warm-up thread gone",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("acceld-warm-up-records")));
  }
}
