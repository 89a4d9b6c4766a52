package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesFromTheFirstDelayUpToTheCapAndStaysThere() {
    Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    List<Long> seconds = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seconds.add(backoff.next().toSeconds());
    }

    assertThat(seconds).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L);
  }

  @Test
  void aSuccessStartsOverFromTheFirstDelay() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30));
    backoff.next();
    backoff.next();
    backoff.next();

    backoff.reset();

    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aFirstDelayEqualToTheCapNeverGrows() {
    Backoff backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5));

    assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(5));
    assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void anEnormousCapDoesNotOverflow() {
    Duration max = Duration.ofSeconds(Long.MAX_VALUE);
    Backoff backoff = new Backoff(Duration.ofSeconds(1), max);

    Duration last = Duration.ZERO;
    for (int i = 0; i < 100; i++) {
      last = backoff.next();
    }

    assertThat(last).isEqualTo(max);
  }

  @Test
  void nonsenseDelaysAreRefusedWithBothValues() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT2S")
        .hasMessageContaining("PT1S");
  }
}
