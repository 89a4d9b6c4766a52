package io.acceld.kube;

import java.net.URI;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach and authenticate to the API server, whichever way it was configured (kubeconfig or
 * in-cluster).
 *
 * @param server the API server's base URL, such as {@code https://10.96.0.1:443}
 * @param certificateAuthorities the CAs to trust; empty trusts the JDK's defaults
 * @param insecureSkipTlsVerify trust any server certificate (kubeconfig's {@code
 *     insecure-skip-tls-verify}); for development clusters only
 * @param token the bearer token to send
 * @param clientIdentity a client certificate and its key, for mutual TLS
 * @param origin where this came from, for messages ({@code kubeconfig /etc/k.yaml, context c})
 */
public record KubeConfig(
    URI server,
    List<Certificate> certificateAuthorities,
    boolean insecureSkipTlsVerify,
    TokenSource token,
    Optional<ClientIdentity> clientIdentity,
    String origin) {
  public KubeConfig {
    Objects.requireNonNull(server, "server");
    certificateAuthorities = List.copyOf(certificateAuthorities);
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(clientIdentity, "clientIdentity");
    Objects.requireNonNull(origin, "origin");
  }

  /** A client certificate chain and its private key. */
  public record ClientIdentity(List<Certificate> chain, PrivateKey key) {
    public ClientIdentity {
      chain = List.copyOf(chain);
      Objects.requireNonNull(key, "key");
    }

    @Override
    public String toString() {
      return "ClientIdentity[" + chain.size() + " certificate(s)]"; // never the key
    }
  }
}
