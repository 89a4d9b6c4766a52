package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.NodeDiscovery;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlEventType;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping the event watch while it waits in NVML: the agent's stop does not sit out the wait, and
 * nothing the wait returns afterwards is acted on.
 */
class NvmlEventMonitorStopIT {
  /** Far longer than the test: only an event ends the wait. */
  private static final int LONG_WAIT_MS = 600_000;

  @TempDir Path root;

  @Test
  void closeReturnsWhileNvmlStillWaitsAndWhatTheWaitReturnsLaterIsIgnored() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble fake = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    AtomicInteger changes = new AtomicInteger();
    HealthListener listener = changes::incrementAndGet;
    HealthMarks marks = new HealthMarks(Clock.systemUTC(), Optional.empty());
    try (NodeDiscovery discovery = NodeDiscovery.open(fake.discoveryOf(node));
        LogCapture logs = LogCapture.of(NvmlEventMonitor.class)) {
      Inventory discovered = discovery.scan();
      Nvml nvml = discovery.nvml().orElseThrow();
      NvmlEventMonitor monitor =
          new NvmlEventMonitor(
              nvml,
              () -> discovered,
              marks,
              XidPolicy.of(List.of(), List.of()),
              listener,
              () -> {},
              Clock.systemUTC(),
              LONG_WAIT_MS);
      monitor.start();
      Eventually.await("the watch waiting", () -> fake.control().acceld_fake_waiting() == 1);
      assertThat(fake.control().acceld_fake_inject_event(0, NvmlEventType.XID_CRITICAL_ERROR, 79))
          .isEqualTo(1);
      Eventually.await("the XID acted on", () -> changes.get() == 1);
      Eventually.await("waiting again", () -> fake.control().acceld_fake_waiting() == 1);

      long start = System.nanoTime();
      monitor.close();
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      // The wait has minutes to go: a close that waited for the thread took its 3 s bound.
      assertThat(took).isLessThan(Duration.ofSeconds(2));
      assertThat(monitor.state()).isEqualTo(NvmlEventMonitor.State.STOPPED);
      assertThat(fake.control().acceld_fake_waiting()).as("still in NVML").isEqualTo(1);
      nvml.close(); // what the agent's stop does next
      assertThat(nvml.callStats().calls("nvmlShutdown")).as("not under the wait").isZero();

      // An XID now ends the wait: NVML shuts down after it, and nobody acts on the XID.
      assertThat(fake.control().acceld_fake_inject_event(1, NvmlEventType.XID_CRITICAL_ERROR, 79))
          .isEqualTo(1);
      Eventually.await(
          "NVML shut down after the wait", () -> nvml.callStats().calls("nvmlShutdown") == 1);
      Eventually.await("no thread in NVML", () -> fake.control().acceld_fake_waiting() == 0);
      assertThat(changes.get()).isEqualTo(1);
      assertThat(marks.has(node.gpus().get(1).uuid(), HealthSource.XID)).isFalse();
      assertThat(logs.warnings()).isEmpty();
    }
  }
}
