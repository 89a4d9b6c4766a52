package io.acceld.agent;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop. Handling the signals ourselves (rather than in a
 * shutdown hook) lets the agent remove its sockets and exit with 0, which is what systemd and the
 * kubelet's pod lifecycle treat as a clean stop.
 */
public final class StopSignal {
  private static final Logger log = LoggerFactory.getLogger(StopSignal.class);

  private final CountDownLatch stopped = new CountDownLatch(1);

  /** Installs the handlers. Call once per process. */
  public static StopSignal install() {
    StopSignal signal = new StopSignal();
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(
          new Signal(name),
          s -> {
            log.info("Received SIG{}, stopping", s.getName());
            signal.stop();
          });
    }
    return signal;
  }

  public void stop() {
    stopped.countDown();
  }

  public void await() throws InterruptedException {
    stopped.await();
  }
}
