package io.acceld.metrics;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Who may read {@code /metrics} and {@code /devices}, and over what: an optional bearer token and
 * optional TLS. The probes ({@code /healthz}, {@code /readyz}) never ask for the token, since the
 * kubelet's probes cannot send one; under TLS they too are HTTPS (the kubelet does not verify).
 */
public final class MetricsAccess {
  private final Optional<BearerToken> token;
  private final Optional<PemTls> tls;

  private MetricsAccess(Optional<BearerToken> token, Optional<PemTls> tls) {
    this.token = token;
    this.tls = tls;
  }

  /** Plain HTTP, no token: the default. */
  public static MetricsAccess open() {
    return new MetricsAccess(Optional.empty(), Optional.empty());
  }

  /**
   * From {@code --metrics-auth}, {@code --metrics-tls-cert} and {@code --metrics-tls-key}; empty
   * strings for "not set". Reads the files now, so a bad one stops the start.
   *
   * @throws IllegalArgumentException naming the setting and what is wrong
   */
  public static MetricsAccess fromSettings(String auth, String certificate, String key) {
    Optional<BearerToken> token = BearerToken.fromSetting(auth);
    boolean hasCertificate = !certificate.isBlank();
    boolean hasKey = !key.isBlank();
    if (hasCertificate != hasKey) {
      throw new IllegalArgumentException(
          "--metrics-tls-cert and --metrics-tls-key go together: set both or neither");
    }
    Optional<PemTls> tls =
        hasCertificate
            ? Optional.of(PemTls.load(Path.of(certificate.strip()), Path.of(key.strip())))
            : Optional.empty();
    return new MetricsAccess(token, tls);
  }

  Optional<BearerToken> token() {
    return token;
  }

  Optional<PemTls> tls() {
    return tls;
  }

  /** For the start-up line: {@code http} or {@code https}, and whether a token is required. */
  String describe() {
    return (tls.isPresent() ? "https" : "http")
        + (token.isPresent() ? ", bearer token required for /metrics and /devices" : "");
  }
}
