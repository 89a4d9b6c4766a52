package io.acceld.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The client side of {@link MetricsAccess}: how a command on the node ({@code acceld devices
 * --agent}) reaches a running agent's {@code /devices} when that agent requires a token or serves
 * HTTPS. It reads the same two settings the agent reads, so on a node whose config file or env file
 * sets {@code --metrics-auth} and {@code --metrics-tls-cert} the command just works.
 *
 * <p>Under TLS the agent's own certificate is the one trusted: the server must present exactly a
 * certificate of the {@code --metrics-tls-cert} file. Pinning is stronger than a CA check with a
 * host name, and it works for the {@code 127.0.0.1} or node-IP URLs an operator types, which a
 * cluster-issued certificate seldom names. Without a certificate file, HTTPS uses the JDK's CAs.
 */
public final class AgentEndpointClient {
  private final Optional<BearerToken> token;
  private final HttpClient client;

  private AgentEndpointClient(Optional<BearerToken> token, HttpClient client) {
    this.token = token;
    this.client = client;
  }

  /**
   * @param auth {@code --metrics-auth}, empty for none
   * @param certificate {@code --metrics-tls-cert}, empty for none
   * @throws IllegalArgumentException naming the setting and what is wrong with its file
   */
  public static AgentEndpointClient fromSettings(String auth, String certificate) {
    Optional<BearerToken> token = BearerToken.fromSetting(auth);
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (!certificate.isBlank()) {
      builder.sslContext(pinning(Path.of(certificate.strip())));
    }
    return new AgentEndpointClient(token, builder.build());
  }

  public HttpClient http() {
    return client;
  }

  /** A GET of {@code uri}, with the token when there is one. */
  public HttpRequest get(URI uri, Duration timeout) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
    token.ifPresent(t -> request.header("Authorization", t.authorization()));
    return request.build();
  }

  /** Whether a token is sent: to tell "no token configured" from "the token was refused". */
  public boolean sendsToken() {
    return token.isPresent();
  }

  private static SSLContext pinning(Path file) {
    List<Certificate> pinned;
    try (InputStream in = Files.newInputStream(file)) {
      pinned = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException("--metrics-tls-cert: cannot read " + file + ": " + e, e);
    }
    if (pinned.isEmpty()) {
      throw new IllegalArgumentException("--metrics-tls-cert: " + file + " holds no certificate");
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new PinnedTrust(pinned, file)}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }

  /**
   * Trusts a server whose leaf certificate is one of the pinned ones. An extended trust manager, so
   * the JDK leaves the decision to it rather than adding a host-name check of its own.
   */
  private static final class PinnedTrust extends X509ExtendedTrustManager {
    private final List<Certificate> pinned;
    private final Path file;

    PinnedTrust(List<Certificate> pinned, Path file) {
      this.pinned = pinned;
      this.file = file;
    }

    private void check(X509Certificate[] chain) throws CertificateException {
      if (chain == null || chain.length == 0 || !pinned.contains(chain[0])) {
        throw new CertificateException(
            "the agent's certificate is not the one in " + file + " (--metrics-tls-cert)");
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("a client of the agent does not accept clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("a client of the agent does not accept clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("a client of the agent does not accept clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
