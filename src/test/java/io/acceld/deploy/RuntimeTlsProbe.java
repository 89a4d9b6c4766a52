package io.acceld.deploy;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A program {@link ReleaseIT} runs through the installed tree's launcher, in the agent jar's place,
 * to see the TLS that tree's runtime can do (the jlinked runtime leaves out what jdeps does not
 * name, and the JDK degrades without a word when a provider or the CA bundle is missing):
 *
 * <ul>
 *   <li>{@code anchors}: how many CAs the JVM's default trust store holds, which is what a
 *       kubeconfig that names no CA is checked against. A runtime without its CA bundle reads an
 *       empty store, and prints 0.
 *   <li>{@code handshake PORT CA_PEM}: a TLS handshake with 127.0.0.1:PORT, checked against CA_PEM
 *       and the address as the agent's API client checks (PKIX, host-name identification). It
 *       prints the protocol and cipher suite, or the failure.
 * </ul>
 */
public final class RuntimeTlsProbe {
  private RuntimeTlsProbe() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "anchors" -> System.out.println("default trust anchors: " + defaultAnchors());
      case "handshake" ->
          System.out.println(handshake(Integer.parseInt(args[1]), Path.of(args[2])));
      default -> throw new IllegalArgumentException("anchors | handshake PORT CA_PEM");
    }
  }

  private static int defaultAnchors() throws Exception {
    int anchors = 0;
    for (TrustManager manager : trust(null)) {
      if (manager instanceof X509TrustManager x509) {
        anchors += x509.getAcceptedIssuers().length;
      }
    }
    return anchors;
  }

  /** The trust managers for {@code store}; for null, the JVM's default trust store. */
  private static TrustManager[] trust(KeyStore store) throws Exception {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory.getTrustManagers();
  }

  private static String handshake(int port, Path caPem) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    try (InputStream in = Files.newInputStream(caPem)) {
      store.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust(store), null);
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
      SSLParameters params = socket.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(params);
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return "handshake: "
          + socket.getSession().getProtocol()
          + " "
          + socket.getSession().getCipherSuite();
    } catch (Exception e) {
      return "handshake failed: " + e;
    }
  }
}
