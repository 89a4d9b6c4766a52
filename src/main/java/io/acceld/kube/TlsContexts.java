package io.acceld.kube;

import io.acceld.config.ConfigException;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** The TLS context a {@link KubeConfig} asks for: its CAs, its client identity, or no checks. */
final class TlsContexts {
  private TlsContexts() {}

  static SSLContext of(KubeConfig config) {
    try {
      char[] password = new char[0];
      KeyManagerFactory keys = null;
      if (config.clientIdentity().isPresent()) {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        var identity = config.clientIdentity().get();
        store.setKeyEntry(
            "client", identity.key(), password, identity.chain().toArray(Certificate[]::new));
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, password);
      }
      TrustManager[] trust = null; // the JDK's CAs
      if (config.insecureSkipTlsVerify()) {
        trust = new TrustManager[] {new TrustingAnyone()};
      } else if (!config.certificateAuthorities().isEmpty()) {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int n = 0;
        for (Certificate ca : config.certificateAuthorities()) {
          store.setCertificateEntry("ca-" + n++, ca);
        }
        TrustManagerFactory factory =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        trust = factory.getTrustManagers();
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : keys.getKeyManagers(), trust, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new ConfigException(
          "cannot make a TLS context from " + config.origin() + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code insecure-skip-tls-verify}: an extended trust manager that checks nothing, which also
   * skips the host-name check (the JDK does that check inside extended trust managers).
   */
  private static final class TrustingAnyone extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
