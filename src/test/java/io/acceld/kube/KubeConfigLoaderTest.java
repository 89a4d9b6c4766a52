package io.acceld.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.acceld.config.ConfigException;
import io.acceld.dra.apiserver.DraApiSettings;
import io.acceld.testing.SelfSignedCertificate;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the API server: kubeconfig, $KUBECONFIG, in-cluster. */
class KubeConfigLoaderTest {
  @TempDir Path dir;

  Path kubeconfig(String cluster, String user) throws Exception {
    Path file = dir.resolve("config");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        current-context: work
        clusters:
        - name: other
          cluster: {server: "https://other.example:6443"}
        - name: prod
          cluster:
        %s
        contexts:
        - name: home
          context: {cluster: other, user: nobody}
        - name: work
          context: {cluster: prod, user: agent}
        users:
        - name: agent
          user:
        %s
        """
            .formatted(cluster.indent(4).stripTrailing(), user.indent(4).stripTrailing()));
    return file;
  }

  @Test
  void theCurrentContextsServerAndTokenAreUsed() throws Exception {
    KubeConfig config =
        KubeConfigLoader.fromFile(
            kubeconfig("server: https://api.example:6443", "token: abc.def"), "--kubeconfig");
    assertThat(config.server().toString()).isEqualTo("https://api.example:6443");
    assertThat(config.token().token()).contains("abc.def");
    assertThat(config.clientIdentity()).isEmpty();
    assertThat(config.certificateAuthorities()).isEmpty();
    assertThat(config.insecureSkipTlsVerify()).isFalse();
    assertThat(config.origin()).contains("context \"work\"").contains("--kubeconfig");
    assertThat(config.token().toString()).doesNotContain("abc");
  }

  @Test
  void aTokenFileIsReadAgainWhenItRotates() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "first\n");
    KubeConfig config =
        KubeConfigLoader.fromFile(
            kubeconfig("server: https://api.example", "tokenFile: token"), "test");
    assertThat(config.token().token()).contains("first");
    Files.writeString(token, "second");
    Files.setLastModifiedTime(token, FileTime.from(Instant.now().plusSeconds(5)));
    assertThat(config.token().token()).contains("second");
  }

  @Test
  void insecureSkipTlsVerifyIsRead() throws Exception {
    KubeConfig config =
        KubeConfigLoader.fromFile(
            kubeconfig("server: https://api.example\ninsecure-skip-tls-verify: true", "{}"), "t");
    assertThat(config.insecureSkipTlsVerify()).isTrue();
    assertThat(TlsContexts.of(config)).isNotNull();
  }

  @Test
  void caAndClientCertificateDataMakeAWorkingMutualTlsConnection() throws Exception {
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, "-traditional"); // a PKCS#1 key, as kubeadm writes
    String crtData = Base64.getEncoder().encodeToString(Files.readAllBytes(crt));
    String keyData = Base64.getEncoder().encodeToString(Files.readAllBytes(key));

    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    SSLContext serverTls = SelfSignedCertificate.serving(crt, key);
    AtomicReference<String> peer = new AtomicReference<>();
    server.setHttpsConfigurator(
        new HttpsConfigurator(serverTls) {
          @Override
          public void configure(HttpsParameters params) {
            var p = serverTls.getDefaultSSLParameters();
            p.setWantClientAuth(true);
            params.setSSLParameters(p);
          }
        });
    server.createContext(
        "/api/v1/nodes/a",
        exchange -> {
          try (exchange) {
            var session = ((com.sun.net.httpserver.HttpsExchange) exchange).getSSLSession();
            try {
              peer.set(session.getPeerPrincipal().getName());
            } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
              peer.set("none");
            }
            byte[] body = "{\"metadata\":{\"uid\":\"u\"}}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
        });
    server.start();
    try {
      KubeConfig config =
          KubeConfigLoader.fromFile(
              kubeconfig(
                  "server: https://localhost:"
                      + server.getAddress().getPort()
                      + "\ncertificate-authority-data: "
                      + crtData,
                  "client-certificate-data: " + crtData + "\nclient-key-data: " + keyData),
              "test");
      assertThat(config.certificateAuthorities()).hasSize(1);
      assertThat(config.clientIdentity()).isPresent();
      try (KubeApi api = new KubeApi(config, Duration.ofSeconds(5))) {
        assertThat(api.get("/api/v1/nodes/a").at("/metadata/uid").asText()).isEqualTo("u");
      }
      assertThat(peer.get()).contains("CN=localhost");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aServerCertificateNoCaVouchesForIsRefused() throws Exception {
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(SelfSignedCertificate.serving(crt, key)));
    server.createContext("/", exchange -> exchange.close());
    server.start();
    try (KubeApi api =
        new KubeApi(
            KubeConfigLoader.fromFile(
                kubeconfig("server: https://localhost:" + server.getAddress().getPort(), "{}"),
                "t"),
            Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void theFlagWinsThenTheFirstFileOfKubeconfigThenInCluster() throws Exception {
    Path flag = kubeconfig("server: https://flag.example", "token: f");
    Path first = dir.resolve("first");
    Files.writeString(first, Files.readString(flag).replace("flag.example", "first.example"));
    Map<String, String> env =
        Map.of(
            "KUBECONFIG", first + ":" + dir.resolve("second-is-ignored"),
            "KUBERNETES_SERVICE_HOST", "10.96.0.1",
            "KUBERNETES_SERVICE_PORT", "443");
    Path sa = dir.resolve("sa");
    assertThat(KubeConfigLoader.load(flag.toString(), env, sa).server().getHost())
        .isEqualTo("flag.example");
    KubeConfig fromEnv = KubeConfigLoader.load("", env, sa);
    assertThat(fromEnv.server().getHost()).isEqualTo("first.example");
    assertThat(fromEnv.origin()).contains("the first file of $KUBECONFIG");
  }

  @Test
  void inClusterReadsTheServiceAccountDirectory() throws Exception {
    Path sa = Files.createDirectories(dir.resolve("serviceaccount"));
    Files.writeString(sa.resolve("token"), "projected-1");
    SelfSignedCertificate.write(sa.resolve("ca.crt"), dir.resolve("ca.key"), null);
    KubeConfig config =
        KubeConfigLoader.load(
            "", Map.of("KUBERNETES_SERVICE_HOST", "fd00::1", "KUBERNETES_SERVICE_PORT", "443"), sa);
    assertThat(config.server().toString()).isEqualTo("https://[fd00::1]:443");
    assertThat(config.certificateAuthorities()).hasSize(1);
    assertThat(config.token().token()).contains("projected-1");
    Files.writeString(sa.resolve("token"), "projected-2");
    Files.setLastModifiedTime(sa.resolve("token"), FileTime.from(Instant.now().plusSeconds(5)));
    assertThat(config.token().token()).contains("projected-2");
  }

  @Test
  void whatIsMissingOrUnsupportedIsNamed() throws Exception {
    assertThatThrownBy(() -> KubeConfigLoader.load("", Map.of(), dir))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("KUBERNETES_SERVICE_HOST");
    assertThatThrownBy(
            () ->
                KubeConfigLoader.load(
                    "",
                    Map.of("KUBERNETES_SERVICE_HOST", "h", "KUBERNETES_SERVICE_PORT", "1"),
                    dir))
        .hasMessageContaining("service-account token");
    assertThatThrownBy(
            () ->
                KubeConfigLoader.fromFile(
                    kubeconfig("server: https://a", "exec: {command: aws}"), "t"))
        .hasMessageContaining("exec or auth-provider");
    assertThatThrownBy(
            () ->
                KubeConfigLoader.fromFile(kubeconfig("insecure-skip-tls-verify: true", "{}"), "t"))
        .hasMessageContaining("has no server");
    assertThatThrownBy(
            () ->
                KubeConfigLoader.fromFile(
                    kubeconfig("server: https://a", "client-certificate-data: AAAA"), "t"))
        .hasMessageContaining("not both");
    Path bad = dir.resolve("bad");
    Files.writeString(bad, "current-context: [\n");
    assertThatThrownBy(() -> KubeConfigLoader.fromFile(bad, "t")).hasMessageContaining("not YAML");
    assertThatThrownBy(() -> KubeConfigLoader.fromFile(dir.resolve("absent"), "t"))
        .hasMessageContaining("cannot read");
  }

  @Test
  void theDriverAndNodeNameAreCheckedAtStart() throws Exception {
    KubeConfig kube =
        KubeConfigLoader.fromFile(kubeconfig("server: https://api.example", "token: t"), "t");
    assertThat(
            new DraApiSettings("gpu.acceld.io", "node-a", kube, DraApiSettings.Timings.DEFAULT)
                .driver())
        .isEqualTo("gpu.acceld.io");
    for (String bad : java.util.List.of("GPU.acceld.io", "gpu_acceld", "-gpu.io", "a".repeat(64))) {
      assertThatThrownBy(
              () -> new DraApiSettings(bad, "node-a", kube, DraApiSettings.Timings.DEFAULT))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--dra-driver");
    }
    assertThatThrownBy(
            () -> new DraApiSettings("gpu.acceld.io", " ", kube, DraApiSettings.Timings.DEFAULT))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("NODE_NAME");
  }
}
