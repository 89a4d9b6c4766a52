package io.acceld.mesos.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {
  @Test
  void oneLinePerKindPerIntervalCountingTheRest() {
    AtomicLong now = new AtomicLong();
    LogThrottle throttle = new LogThrottle(Duration.ofSeconds(10), now::get);
    assertThat(throttle.permit("a")).isZero();
    assertThat(throttle.permit("a")).isEqualTo(-1);
    assertThat(throttle.permit("a")).isEqualTo(-1);
    assertThat(throttle.permit("b")).isZero(); // kinds are counted apart
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(throttle.permit("a")).isEqualTo(2);
    assertThat(LogThrottle.suffix(2)).isEqualTo(" (2 more like it not logged)");
    assertThat(LogThrottle.suffix(0)).isEmpty();
  }
}
