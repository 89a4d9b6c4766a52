package io.acceld.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand; thread-safe, since the code under test reads it on its threads. */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-12-01T12:00:00Z"));

  @Override
  public Instant instant() {
    return now.get();
  }

  public void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
