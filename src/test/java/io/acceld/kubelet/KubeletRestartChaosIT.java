package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: many kubelet restarts in a row, of every shape the agent must survive, each one
 * re-registered and streaming within 2 s of the new {@code kubelet.sock}. A Register sent while the
 * agent's own socket is being re-created makes the kubelet's dial-back wait its full 10 s, so one
 * bad interleaving anywhere in the run fails it; the rounds are many and their pauses random so
 * that a one-in-a-few race shows up in a single run. The seed is printed so a failure can be
 * replayed with {@code -Dacceld.chaosSeed=N}.
 */
class KubeletRestartChaosIT {
  static final String NVIDIA = "nvidia.com/gpu";

  /** The issue's bound, asserted on every round. */
  static final Duration WITHIN = Duration.ofSeconds(2);

  /**
   * Issue 10's 50 rounds (about 40 s), so that the suite has time for the other chaos suites; the
   * issue saw its race in about one run of 50 in four, so every CI run adds a one-in-four chance of
   * catching it. {@code -Dacceld.chaosRounds=200} runs four such runs in one go (about 160 s).
   */
  static final int ROUNDS = Integer.getInteger("acceld.chaosRounds", 50);

  /** How far apart the "socket wiped twice" variant wipes the directory. */
  static final Duration WIPE_GAP = Duration.ofMillis(150);

  @TempDir Path root;
  final List<AutoCloseable> closers = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  <T extends AutoCloseable> T keep(T c) {
    closers.add(c);
    return c;
  }

  /** The shapes of restart a round can take. */
  enum Variant {
    /** Sockets wiped, kubelet.sock back after a random 0–2 s pause. */
    RESTART,
    /** Sockets wiped, kubelet.sock back only after the longest pause (a slow kubelet start). */
    LATE_KUBELET_SOCK,
    /** Sockets wiped and kubelet.sock back at once: both signals in one burst. */
    BOTH_AT_ONCE,
    /** Two restarts 150 ms apart: the second lands while the agent handles the first. */
    WIPED_TWICE,
    /** Only kubelet.sock re-created (the kubelet's serveWithRetry); our socket stays. */
    RELISTEN_ONLY
  }

  @Test
  void everyRestartIsReRegisteredAndStreamingWithinTwoSeconds() throws Exception {
    long seed = Long.getLong("acceld.chaosSeed", System.nanoTime());
    Random random = new Random(seed);
    System.out.println("KubeletRestartChaosIT seed " + seed + ", " + ROUNDS + " rounds");

    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    KubeletDouble kubelet = keep(KubeletDouble.start(root.resolve("kubelet/device-plugins")));
    AgentHarness agent =
        keep(
            AgentHarness.on(node.tree())
                .flag("device-plugin-dir", kubelet.deviceDir().toString())
                .start(root.resolve("etc")));
    awaitStreaming(kubelet, 0, Instant.now(), Duration.ofSeconds(5));

    Variant[] variants = Variant.values();
    List<Duration> latencies = new ArrayList<>();
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      // Every variant comes up regularly; plain restarts with random pauses fill the rest.
      Variant variant = round < variants.length ? variants[round] : pick(random, variants);
      Duration pause = Duration.ofMillis(random.nextInt(2001));
      int before = kubelet.registrationHistory(NVIDIA).size();
      Instant socketBack =
          switch (variant) {
            case RESTART -> restart(kubelet, pause);
            case LATE_KUBELET_SOCK -> restart(kubelet, Duration.ofSeconds(2));
            case BOTH_AT_ONCE -> restart(kubelet, Duration.ZERO);
            case WIPED_TWICE -> {
              Instant first = Instant.now();
              kubelet.restart(Duration.ZERO);
              // The gap between the two wipes is the stimulus, not a wait for a condition.
              Thread.sleep(
                  Math.max(0, WIPE_GAP.minus(Duration.between(first, Instant.now())).toMillis()));
              yield restart(kubelet, Duration.ofMillis(random.nextInt(301)));
            }
            case RELISTEN_ONLY -> {
              kubelet.relistenOnly();
              yield socketBoundAt(kubelet);
            }
          };
      String what = "round " + round + " (" + variant + ", pause " + pause.toMillis() + " ms)";
      Streaming current = awaitStreaming(kubelet, before, socketBack, WITHIN);
      Duration latency = Duration.between(socketBack, current.since());
      assertThat(latency).as(what + ": registered and streaming after").isLessThan(WITHIN);
      latencies.add(latency.isNegative() ? Duration.ZERO : latency);
    }
    Duration total = Duration.between(started, Instant.now());
    latencies.sort(null);
    Duration worst = latencies.get(latencies.size() - 1);
    Duration p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
    Duration median = latencies.get(latencies.size() / 2);
    System.out.printf(
        "KubeletRestartChaosIT: %d restarts in %d s; re-registered and streaming after"
            + " median %d ms, p99 %d ms, worst %d ms%n",
        latencies.size(), total.toSeconds(), median.toMillis(), p99.toMillis(), worst.toMillis());
    // The agent learns of its registration when Register returns, a moment after the kubelet.
    Eventually.await("the agent ready", WITHIN, () -> agent.kubelet().ready());
  }

  private static Variant pick(Random random, Variant[] variants) {
    // Half plain restarts, half one of the others.
    return random.nextBoolean() ? Variant.RESTART : variants[random.nextInt(variants.length)];
  }

  /** Restarts the kubelet; returns when its new {@code kubelet.sock} was bound. */
  private static Instant restart(KubeletDouble kubelet, Duration pause) throws Exception {
    kubelet.restart(pause);
    return socketBoundAt(kubelet);
  }

  /**
   * When {@code kubelet.sock} was bound: its modification time. The agent often registers before
   * {@link KubeletDouble#restart} has even returned, so the clock must start at the bind.
   */
  private static Instant socketBoundAt(KubeletDouble kubelet) throws Exception {
    return Files.getLastModifiedTime(kubelet.kubeletSocket()).toInstant();
  }

  /** A registration the kubelet holds as current, and when its stream first had every device. */
  record Streaming(Registration registration, Instant since) {}

  /**
   * Waits, up to {@code within} after {@code socketBack}, until the kubelet's current registration
   * (made since its last restart) is newer than registration #{@code after}, its stream is open and
   * has listed all eight devices healthy.
   */
  private static Streaming awaitStreaming(
      KubeletDouble kubelet, int after, Instant socketBack, Duration within)
      throws InterruptedException {
    Duration left = within.minus(Duration.between(socketBack, Instant.now()));
    return kubelet.await(
        "a registration after #" + after + " streaming eight healthy devices",
        () -> {
          Optional<Registration> now = kubelet.registration(NVIDIA);
          if (now.isEmpty() || now.get().sequence() <= after || !kubelet.isConnected(NVIDIA)) {
            return Optional.empty();
          }
          Registration r = now.get();
          return kubelet.updates(NVIDIA).stream()
              .filter(u -> u.registration() == r.sequence())
              .filter(u -> u.devices().size() == 8)
              .filter(u -> u.devices().stream().allMatch(DeviceState::healthy))
              .findFirst()
              .map(u -> new Streaming(r, later(u.at(), r.registeredAt())));
        },
        left.isNegative() ? Duration.ofMillis(1) : left);
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
