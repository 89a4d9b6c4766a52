package io.acceld.metrics;

import io.acceld.util.Pem;
import io.acceld.util.RateLimitedLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoints' TLS identity from a PEM certificate chain and a PEM private key: the two
 * files cert-manager puts in every certificate Secret ({@code tls.crt}, {@code tls.key}), so an
 * operator mounts the Secret and names the files, with no keystore or password to manage. The key
 * may be PKCS#8 ({@code BEGIN PRIVATE KEY}, any algorithm) or PKCS#1 RSA ({@code BEGIN RSA PRIVATE
 * KEY}, cert-manager's default encoding).
 *
 * <p>The files are re-read when they change (cert-manager rotates them in place), on the next
 * connection; if the new pair does not load, the previous one keeps serving, with a warning.
 */
final class PemTls {
  private static final Logger log = LoggerFactory.getLogger(PemTls.class);

  private final Path certificate;
  private final Path key;
  private final RateLimitedLog reloadFailures = new RateLimitedLog(log, Duration.ofMinutes(5));
  private Loaded loaded;

  private record Loaded(FileTime certificateTime, FileTime keyTime, SSLContext context) {}

  private PemTls(Path certificate, Path key, Loaded loaded) {
    this.certificate = certificate;
    this.key = key;
    this.loaded = loaded;
  }

  /**
   * Loads the pair now, so a bad file stops the start with a clear message.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  static PemTls load(Path certificate, Path key) {
    return new PemTls(certificate, key, read(certificate, key));
  }

  /** The current context, re-read first if either file changed since it was loaded. */
  synchronized SSLContext context() {
    try {
      if (!Files.getLastModifiedTime(certificate).equals(loaded.certificateTime())
          || !Files.getLastModifiedTime(key).equals(loaded.keyTime())) {
        loaded = read(certificate, key);
        log.info("Reloaded the HTTP TLS certificate from {}", certificate);
      }
    } catch (IOException | IllegalArgumentException e) {
      reloadFailures.warn("Keeping the previous HTTP TLS certificate: {}", e.getMessage());
    }
    return loaded.context();
  }

  private static Loaded read(Path certificatePath, Path keyPath) {
    try {
      FileTime certificateTime = Files.getLastModifiedTime(certificatePath);
      FileTime keyTime = Files.getLastModifiedTime(keyPath);
      List<Certificate> chain = certificates(certificatePath);
      PrivateKey privateKey = privateKey(keyPath);
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] password = new char[0];
      store.setKeyEntry("acceld", privateKey, password, chain.toArray(Certificate[]::new));
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return new Loaded(certificateTime, keyTime, context);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          certificatePath + " and " + keyPath + " do not make a TLS identity: " + e.getMessage(),
          e);
    }
  }

  private static List<Certificate> certificates(Path file) throws IOException {
    return Pem.certificates(Files.readAllBytes(file), file.toString());
  }

  private static PrivateKey privateKey(Path file) throws IOException {
    return Pem.privateKey(Files.readString(file, StandardCharsets.US_ASCII), file.toString());
  }
}
