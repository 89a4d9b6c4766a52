package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.LogCapture;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
  private final AtomicLong now = new AtomicLong();
  private final RateLimitedLog log =
      new RateLimitedLog(
          LoggerFactory.getLogger(RateLimitedLogTest.class), Duration.ofSeconds(10), now::get);

  @Test
  void aFloodOfOneMessageIsWrittenOncePerIntervalWithTheCountOfWhatWasDropped() {
    try (LogCapture logs = LogCapture.of(RateLimitedLogTest.class)) {
      for (int i = 0; i < 1000; i++) {
        log.warn("Refused a call for {}", "id-" + i);
      }
      now.addAndGet(Duration.ofSeconds(11).toNanos());
      log.warn("Refused a call for {}", "id-last");

      assertThat(logs.warnings())
          .containsExactly(
              "Refused a call for id-0",
              "Refused a call for id-last (999 more like this suppressed)");
    }
  }

  @Test
  void differentMessagesAreLimitedSeparately() {
    try (LogCapture logs = LogCapture.of(RateLimitedLogTest.class)) {
      log.warn("one {}", 1);
      log.warn("two {}", 2);
      log.warn("one {}", 3);

      assertThat(logs.warnings()).containsExactly("one 1", "two 2");
    }
  }

  @Test
  void theCountGoesBeforeATrailingException() {
    try (LogCapture logs = LogCapture.of(RateLimitedLogTest.class)) {
      log.warn("failed {}", "a", new IllegalStateException("x"));
      log.warn("failed {}", "b", new IllegalStateException("x"));
      now.addAndGet(Duration.ofSeconds(10).toNanos());
      log.warn("failed {}", "c", new IllegalStateException("x"));

      assertThat(logs.warnings())
          .containsExactly("failed a", "failed c (1 more like this suppressed)");
    }
  }
}
