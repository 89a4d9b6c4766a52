package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.HostPort;
import io.acceld.metrics.MetricsAccess;
import io.acceld.metrics.MetricsServer;
import io.acceld.testing.SelfSignedCertificate;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code acceld devices --agent} against an agent's real HTTPS listener that requires a bearer
 * token: with the node's {@code ACCELD_METRICS_AUTH} and {@code ACCELD_METRICS_TLS_CERT} (the env
 * file the agent itself reads) the listing works; without them the operator is told which setting
 * is missing, and a certificate other than the agent's is refused.
 */
class DevicesAgentAccessIT {
  private static final String DEVICES =
      "[{\"resource\":\"nvidia.com/gpu\",\"id\":\"GPU-1\",\"health\":\"Healthy\"}]\n";

  @TempDir Path dir;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private MetricsServer server;
  private Path token;
  private Path crt;

  @BeforeEach
  void startAgentEndpoint() throws Exception {
    token = dir.resolve("token");
    Files.writeString(token, "s3cret\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, "-traditional");
    server =
        MetricsServer.start(
            new HostPort("127.0.0.1", 0),
            MetricsAccess.fromSettings("bearer:" + token, crt.toString(), key.toString()),
            registry,
            () -> true,
            () -> true,
            () -> DEVICES);
  }

  @AfterEach
  void stop() {
    server.close();
    registry.close();
  }

  @Test
  void theNodesTokenAndCertificateReachAnAgentThatRequiresThem() {
    Run run =
        devices(
            Map.of(
                "ACCELD_METRICS_AUTH",
                "bearer:" + token,
                "ACCELD_METRICS_TLS_CERT",
                crt.toString()));

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("GPU-1").contains("Healthy");
  }

  @Test
  void withoutATokenTheOperatorIsToldWhichSettingIsMissing() {
    Run run = devices(Map.of("ACCELD_METRICS_TLS_CERT", crt.toString()));

    assertThat(run.exit()).isNotZero();
    assertThat(run.err()).contains("requires a token").contains("--metrics-auth");
  }

  @Test
  void aWrongTokenIsReportedAsRefused() throws Exception {
    Path wrong = dir.resolve("wrong");
    Files.writeString(wrong, "guess\n");
    Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));

    Run run =
        devices(
            Map.of(
                "ACCELD_METRICS_AUTH",
                "bearer:" + wrong,
                "ACCELD_METRICS_TLS_CERT",
                crt.toString()));

    assertThat(run.exit()).isNotZero();
    assertThat(run.err()).contains("refused the token");
  }

  @Test
  void aCertificateOtherThanTheAgentsIsNotTrusted() throws Exception {
    Path other = dir.resolve("other.crt");
    SelfSignedCertificate.write(other, dir.resolve("other.key"), null);

    Run run =
        devices(
            Map.of(
                "ACCELD_METRICS_AUTH",
                "bearer:" + token,
                "ACCELD_METRICS_TLS_CERT",
                other.toString()));

    assertThat(run.exit()).isNotZero();
    assertThat(run.err()).contains("cannot reach the agent").contains(other.toString());
  }

  private record Run(int exit, String out, String err) {}

  private Run devices(Map<String, String> env) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            new String[] {"devices", "--agent", "https://127.0.0.1:" + server.port()},
            new CliContext(env, new PrintWriter(out, true), new PrintWriter(err, true)));
    return new Run(exit, out.toString(), err.toString());
  }
}
