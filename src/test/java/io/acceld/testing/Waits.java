package io.acceld.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one scale factor every test wait derives from. A test names the time something needs on an
 * idle machine; every helper that waits for a condition ({@link Eventually}, the kubelet double,
 * the Mesos event streams) multiplies it by {@link #scale()}, so the suite passes on a loaded CI
 * machine without any wait being tuned to "fast enough here". A wait only bounds how long a failing
 * test takes: a passing one returns as soon as its condition holds.
 *
 * <p>The factor is {@value #DEFAULT_SCALE} unless {@code -Dacceld.test.timeScale=N} or the
 * environment's {@code ACCELD_TEST_TIME_SCALE} says otherwise (a decimal number at least 1). Waits
 * that assert that something does <em>not</em> happen within a window are not scaled: on a slow
 * machine they only become weaker, never flaky.
 */
public final class Waits {
  /**
   * The default: a 2-core machine with a load average of 6 (three times its cores) gives each
   * runnable thread about a third of a core, so what takes 1 s idle can take 3 s there.
   */
  public static final double DEFAULT_SCALE = 3;

  private static final double SCALE = read();

  private Waits() {}

  public static double scale() {
    return SCALE;
  }

  /** {@code idle} times the scale factor. */
  public static Duration scaled(Duration idle) {
    return Duration.ofNanos((long) (idle.toNanos() * SCALE));
  }

  /** {@link Process#waitFor(long, TimeUnit)} for {@code idle} scaled: whether it exited. */
  public static boolean exited(Process process, Duration idle) throws InterruptedException {
    return process.waitFor(scaled(idle).toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link Future#get(long, TimeUnit)} for {@code idle} scaled. */
  public static <T> T get(Future<T> future, Duration idle)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(scaled(idle).toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link CountDownLatch#await(long, TimeUnit)} for {@code idle} scaled. */
  public static boolean await(CountDownLatch latch, Duration idle) throws InterruptedException {
    return latch.await(scaled(idle).toNanos(), TimeUnit.NANOSECONDS);
  }

  private static double read() {
    String value = System.getProperty("acceld.test.timeScale");
    if (value == null || value.isBlank()) {
      value = System.getenv("ACCELD_TEST_TIME_SCALE");
    }
    if (value == null || value.isBlank()) {
      return DEFAULT_SCALE;
    }
    double scale;
    try {
      scale = Double.parseDouble(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("acceld.test.timeScale is not a number: " + value, e);
    }
    if (!(scale >= 1) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("acceld.test.timeScale must be at least 1: " + value);
    }
    return scale;
  }
}
