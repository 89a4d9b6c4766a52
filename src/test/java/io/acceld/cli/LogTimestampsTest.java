package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LogTimestampsTest {
  @Test
  void utcIsWhatInstantToStringWritesForAMillisecondInstant() {
    Random random = new Random(1970);
    long end = Instant.parse("2200-01-01T00:00:00Z").toEpochMilli();
    for (int i = 0; i < 20_000; i++) {
      long millis = Math.floorMod(random.nextLong(), end);
      if (i % 4 == 0) {
        millis -= millis % 1000; // whole seconds: no fraction
      } else if (i % 4 == 1) {
        millis -= millis % 100; // .100, .200: still three digits
      }
      assertThat(LogTimestamps.utc(millis))
          .as("%d", millis)
          .isEqualTo(Instant.ofEpochMilli(millis).toString());
    }
    assertThat(LogTimestamps.utc(0)).isEqualTo("1970-01-01T00:00:00Z");
    assertThat(LogTimestamps.utc(Instant.parse("2024-02-29T23:59:59.999Z").toEpochMilli()))
        .isEqualTo("2024-02-29T23:59:59.999Z");
  }
}
