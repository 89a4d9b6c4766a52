package io.acceld.metrics;

import io.acceld.util.RateLimitedLog;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");

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
    try {
      List<Certificate> chain =
          List.copyOf(
              CertificateFactory.getInstance("X.509")
                  .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file))));
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(file + " holds no PEM certificate");
      }
      return chain;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(file + " is not a PEM certificate chain", e);
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    Matcher block = BLOCK.matcher(Files.readString(file, StandardCharsets.US_ASCII));
    if (!block.find()) {
      throw new IllegalArgumentException(file + " holds no PEM private key");
    }
    byte[] der = Base64.getMimeDecoder().decode(block.group(2));
    return switch (block.group(1)) {
      case "PRIVATE KEY" -> pkcs8(file, der);
      case "RSA PRIVATE KEY" ->
          KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(wrapPkcs1(der)));
      default ->
          throw new IllegalArgumentException(
              file
                  + " holds a '"
                  + block.group(1)
                  + "' block; use a PKCS#8 key (BEGIN PRIVATE KEY; cert-manager: privateKey.encoding:"
                  + " PKCS8) or a PKCS#1 RSA key");
    };
  }

  private static PrivateKey pkcs8(Path file, byte[] der) throws GeneralSecurityException {
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException(file + " holds a PKCS#8 key that is not RSA, EC or Ed25519");
  }

  /** A PKCS#1 RSAPrivateKey inside the PKCS#8 PrivateKeyInfo that Java's KeyFactory reads. */
  private static byte[] wrapPkcs1(byte[] pkcs1) {
    byte[] version = {0x02, 0x01, 0x00};
    // SEQUENCE { OID 1.2.840.113549.1.1.1 rsaEncryption, NULL }
    byte[] algorithm = {
      0x30,
      0x0d,
      0x06,
      0x09,
      0x2a,
      (byte) 0x86,
      0x48,
      (byte) 0x86,
      (byte) 0xf7,
      0x0d,
      0x01,
      0x01,
      0x01,
      0x05,
      0x00
    };
    byte[] octets = der(0x04, pkcs1);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(version);
    body.writeBytes(algorithm);
    body.writeBytes(octets);
    return der(0x30, body.toByteArray());
  }

  private static byte[] der(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
