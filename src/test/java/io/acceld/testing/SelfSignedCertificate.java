package io.acceld.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.acceld.util.Pem;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate pair in the files cert-manager writes ({@code tls.crt}, {@code tls.key}), made by
 * the real {@code openssl}; tests that need one are skipped where openssl is missing.
 */
public final class SelfSignedCertificate {
  private SelfSignedCertificate() {}

  /**
   * Writes a self-signed certificate for {@code localhost} and its key.
   *
   * @param keyFormat null for PKCS#8, or an {@code openssl rsa} flag such as {@code -traditional}
   *     to rewrite the key as PKCS#1
   */
  public static void write(Path crt, Path key, String keyFormat) throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "needs openssl");
    run(
        List.of(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            key.toString(),
            "-out",
            crt.toString()));
    if (keyFormat != null) {
      run(List.of("openssl", "rsa", keyFormat, "-in", key.toString(), "-out", key.toString()));
      assertThat(Files.readString(key)).contains("BEGIN RSA PRIVATE KEY");
    }
  }

  /** A client context that trusts exactly {@code crt}. */
  public static SSLContext trusting(Path crt) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(crt)) {
      trust.setCertificateEntry(
          "agent", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  /**
   * A server context with {@code crt} and its key as its identity, trusting {@code crt} as a client
   * certificate too (as an API server trusts the CA that signed its clients').
   */
  public static SSLContext serving(Path crt, Path key) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "server",
        Pem.privateKey(Files.readString(key), key.toString()),
        new char[0],
        Pem.certificates(Files.readAllBytes(crt), crt.toString()).toArray(Certificate[]::new));
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, new char[0]);
    // The client certificate is the same self-signed one: trust it, as an API server trusts its CA.
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry(
        "client", Pem.certificates(Files.readAllBytes(crt), crt.toString()).get(0));
    javax.net.ssl.TrustManagerFactory trust =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  private static void run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }
}
