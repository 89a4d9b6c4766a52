package io.acceld.util;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads named after their job, so a thread dump says which part of the agent is busy and
 * none of them keeps the JVM alive after the agent has closed.
 */
public final class NamedThreads implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger count = new AtomicInteger();

  public NamedThreads(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable r) {
    Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
    t.setDaemon(true);
    return t;
  }
}
