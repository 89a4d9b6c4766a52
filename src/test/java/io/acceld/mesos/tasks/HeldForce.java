package io.acceld.mesos.tasks;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A journal force hook that, once armed, holds the next force until released: a leader caught with
 * its batch on the way to the disk, for the tests of what waits for durability and what does not.
 */
final class HeldForce implements TaskJournal.ForceHook {
  private final CountDownLatch inForce = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean armed = new AtomicBoolean();

  /** The next force is held. */
  void arm() {
    armed.set(true);
  }

  /** Whether a leader is held in its force within 30 s. */
  boolean awaitHeld() throws InterruptedException {
    return inForce.await(30, TimeUnit.SECONDS);
  }

  /** Lets the held force go on. */
  void release() {
    release.countDown();
  }

  @Override
  public void beforeForce() throws IOException {
    if (armed.compareAndSet(true, false)) {
      inForce.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
    }
  }
}
