package io.acceld.util;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM certificates and private keys from bytes, wherever they came from: a file cert-manager wrote
 * (the HTTP endpoints' TLS) or a kubeconfig's {@code *-data} field (the API server's client). The
 * key may be PKCS#8 ({@code BEGIN PRIVATE KEY}: RSA, EC or Ed25519) or PKCS#1 RSA ({@code BEGIN RSA
 * PRIVATE KEY}, cert-manager's and kubeadm's default).
 */
public final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");

  private Pem() {}

  /**
   * Every certificate of a PEM chain.
   *
   * @param source names the bytes in an error (a file, a kubeconfig field)
   * @throws IllegalArgumentException naming {@code source} when it holds no certificate
   */
  public static List<Certificate> certificates(byte[] pem, String source) {
    try {
      List<Certificate> chain =
          List.copyOf(
              CertificateFactory.getInstance("X.509")
                  .generateCertificates(new ByteArrayInputStream(pem)));
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(source + " holds no PEM certificate");
      }
      return chain;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(source + " is not a PEM certificate chain", e);
    }
  }

  /**
   * The first private key of a PEM text.
   *
   * @throws IllegalArgumentException naming {@code source} and what is wrong
   */
  public static PrivateKey privateKey(String pem, String source) {
    Matcher block = BLOCK.matcher(pem);
    if (!block.find()) {
      throw new IllegalArgumentException(source + " holds no PEM private key");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(block.group(2));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + " holds a PEM block that is not base64", e);
    }
    return switch (block.group(1)) {
      case "PRIVATE KEY" -> pkcs8(source, der);
      case "RSA PRIVATE KEY" -> rsa(source, wrapPkcs1(der));
      default ->
          throw new IllegalArgumentException(
              source
                  + " holds a '"
                  + block.group(1)
                  + "' block; use a PKCS#8 key (BEGIN PRIVATE KEY; cert-manager: privateKey.encoding:"
                  + " PKCS8) or a PKCS#1 RSA key");
    };
  }

  private static PrivateKey rsa(String source, byte[] pkcs8) {
    try {
      return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(source + " holds an RSA key that does not parse", e);
    }
  }

  private static PrivateKey pkcs8(String source, byte[] der) {
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException(
        source + " holds a PKCS#8 key that is not RSA, EC or Ed25519");
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
