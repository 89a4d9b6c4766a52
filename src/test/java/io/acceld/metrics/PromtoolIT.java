package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.acceld.testing.Waits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs Prometheus's own linter, {@code promtool check metrics}, on a fully populated scrape: names,
 * units, suffixes, help texts and label names as Prometheus expects them.
 */
class PromtoolIT {
  private static Path promtool;

  @TempDir Path dir;

  /** What every scrape of a busy node must contain, so the lint covers all of it. */
  private static final List<String> FAMILIES =
      List.of(
          "acceld_device_health",
          "acceld_device_health_transitions_total",
          "acceld_resource_devices",
          "acceld_device_xid_errors_total",
          "acceld_kubelet_registered",
          "acceld_kubelet_registrations_total",
          "acceld_allocations_total",
          "acceld_allocate_requests_total",
          "acceld_listandwatch_streams",
          "acceld_grpc_server_calls_total",
          "acceld_grpc_server_call_duration_seconds_bucket",
          "acceld_nvml_calls_total",
          "acceld_nvml_errors_total",
          "DCGM_FI_DEV_GPU_TEMP",
          "DCGM_FI_DEV_POWER_USAGE",
          "DCGM_FI_DEV_GPU_UTIL",
          "DCGM_FI_DEV_MEM_COPY_UTIL",
          "DCGM_FI_DEV_FB_USED",
          "DCGM_FI_DEV_FB_FREE",
          "DCGM_FI_DEV_XID_ERRORS",
          "DCGM_FI_DEV_SM_CLOCK",
          "DCGM_FI_DEV_MEM_CLOCK",
          "DCGM_FI_DEV_MEMORY_TEMP",
          "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
          "DCGM_FI_DEV_ENC_UTIL",
          "DCGM_FI_DEV_DEC_UTIL",
          "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
          "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
          "DCGM_FI_DEV_ROW_REMAP_FAILURE",
          "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
          "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
          "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
          "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
          "jvm_memory_used_bytes",
          "jvm_threads_live_threads",
          "jvm_classes_loaded_classes",
          "process_cpu_seconds_total",
          "process_uptime_seconds",
          "system_cpu_usage");

  /**
   * The one lint dcgm-exporter's own names cost: its PCIe replay counter is called {@code
   * ..._COUNTER}. Renaming it would break every dashboard and alert written for dcgm-exporter,
   * which is the reason these series exist, so it is accepted here in both label modes.
   */
  private static final String REPLAY_COUNTER_LINT =
      "DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'";

  private record Result(int exitCode, String output) {}

  @BeforeAll
  static void findPromtool() {
    Optional<Path> found = locate();
    if (found.isEmpty()) {
      if (System.getenv("CI") != null) {
        fail("promtool is not installed; CI must install it (Debian package 'prometheus')");
      }
      assumeTrue(false, "promtool is not installed; install Debian's 'prometheus' package");
    }
    promtool = found.get();
  }

  @Test
  void aFullyPopulatedScrapePassesPromtoolWithoutAWord() throws Exception {
    try (PopulatedAgent agent = new PopulatedAgent(dir, DcgmCollector.LabelNames.PROMTOOL_CLEAN)) {
      String scrape = agent.scrape();
      assertThat(Exposition.parse(scrape).samples())
          .extracting(Exposition.Sample::name)
          .containsAll(FAMILIES);

      Result result = check(scrape);

      assertThat(result.output()).isEmpty();
      assertThat(result.exitCode()).isZero();
      assertThat(scrape).doesNotContain("DCGM_FI_DEV_PCIE_REPLAY_COUNTER");
    }
  }

  @Test
  void dcgmExporterLabelNamesCostOnlyTheKnownModelNameLint() throws Exception {
    try (PopulatedAgent agent = new PopulatedAgent(dir, DcgmCollector.LabelNames.DCGM_EXPORTER)) {
      Result result = check(agent.scrape());

      // modelName is camelCase; dcgm-exporter's dashboards and users' queries expect it as is.
      // promtool reports it once per GPU series, and reports nothing else.
      String lint = " label names should be written in 'snake_case' not 'camelCase'";
      assertThat(result.output().lines()).contains(REPLAY_COUNTER_LINT);
      List<String> lines =
          result.output().lines().filter(line -> !line.equals(REPLAY_COUNTER_LINT)).toList();
      assertThat(lines)
          .isNotEmpty()
          .allMatch(
              line -> line.matches("DCGM_FI_DEV_[A-Z_]+" + java.util.regex.Pattern.quote(lint)));
      assertThat(lines.stream().map(line -> line.substring(0, line.indexOf(' '))).distinct())
          .hasSize(25); // every DCGM family: the populated node's H100s support all of them
      assertThat(result.exitCode()).isNotZero();
    }
  }

  private static Result check(String scrape) throws Exception {
    Process process =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    CompletableFuture<String> output =
        CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
    try (OutputStream stdin = process.getOutputStream()) {
      stdin.write(scrape.getBytes(StandardCharsets.UTF_8));
    }
    if (!Waits.exited(process, Duration.ofSeconds(60))) {
      process.destroyForcibly();
      fail("promtool did not finish within 60 s");
    }
    return new Result(process.exitValue(), Waits.get(output, Duration.ofSeconds(10)));
  }

  private static String readAll(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Optional<Path> locate() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.concat(
            Stream.of(Path.of("/usr/bin/promtool")),
            Stream.of(path.split(java.io.File.pathSeparator))
                .filter(p -> !p.isEmpty())
                .map(p -> Path.of(p, "promtool")))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
