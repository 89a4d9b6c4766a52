package io.acceld.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.DeviceState;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GPU whose every NVML call blocks (a wedged driver; the NVML double's {@code hang}) while the
 * agent runs: the loops that call NVML for it (the health probe, telemetry, rediscovery) block in
 * the call and stay "alive", so {@code /healthz} must fail naming each stuck loop, or the kubelet
 * would never restart an agent that has stopped watching health. The kubelet's calls do not need
 * NVML and keep being answered; once the GPU answers, {@code /healthz} passes again.
 */
class HungNvmlChaosIT {
  static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir Path root;
  ChaosNode node;

  @AfterEach
  void close() {
    if (node != null) {
      for (int gpu = 0; gpu < 8; gpu++) {
        node.nvml.control().acceld_fake_set_hung(gpu, 0); // no thread left blocked in the double
      }
      node.close();
    }
  }

  @Test
  void aWedgedGpuFailsHealthzNamingTheStuckLoopsAndHealsWhenItAnswers() throws Exception {
    node =
        ChaosNode.start(
            root,
            Map.of(
                "loop-stuck-after", "1s",
                "health-probe-interval", "200ms",
                "telemetry-interval", "200ms"));
    node.kubelet.awaitDevices(ChaosNode.GPU, HungNvmlChaosIT::eightHealthy, WAIT);
    assertThat(status()).isEqualTo(200);

    assertThat(node.nvml.control().acceld_fake_set_hung(5, 1)).isZero();

    Eventually.await(
        "/healthz fails naming the health probe and telemetry stuck in NVML",
        WAIT,
        () ->
            node.get("/healthz")
                .filter(r -> r.statusCode() == 503)
                .map(HttpResponse::body)
                .filter(b -> b.contains("Health probe is stuck"))
                .filter(b -> b.contains("GPU telemetry pass is stuck"))
                .isPresent());
    // The kubelet is still served: another GPU is allocated at once.
    long t0 = System.nanoTime();
    node.kubelet.allocateOne(ChaosNode.GPU, List.of(node.uuid(2)));
    // The hang lasts until it is lifted; a second (scaled) is far more than an Allocate takes
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isLessThan(Waits.scaled(Duration.ofSeconds(1)));

    assertThat(node.nvml.control().acceld_fake_set_hung(5, 0)).isZero();
    Eventually.await("/healthz passes once the GPU answers", WAIT, () -> status() == 200);
  }

  private int status() {
    return node.get("/healthz").map(HttpResponse::statusCode).orElse(0);
  }

  private static boolean eightHealthy(List<DeviceState> l) {
    return l.size() == 8 && l.stream().allMatch(DeviceState::healthy);
  }
}
