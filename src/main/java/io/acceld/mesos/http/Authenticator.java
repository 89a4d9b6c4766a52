package io.acceld.mesos.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code --mesos-auth basic:FILE} or {@code bearer:FILE}: the credentials every Mesos route but
 * {@code /version} requires. A basic file holds {@code user:password} lines, a bearer file one
 * token per line; blank lines and lines starting with {@code #} are skipped.
 *
 * <p>The file must be readable and writable by its owner only: it holds secrets, and a file others
 * can write would let them add their own. Credentials are kept as SHA-256 digests and every one is
 * compared, in constant time, on every request, so neither timing nor an early exit tells a client
 * how close a guess was or which users exist.
 */
public final class Authenticator {
  /** How a client presents its credentials. */
  public enum Scheme {
    BASIC("Basic"),
    BEARER("Bearer");

    private final String word;

    Scheme(String word) {
      this.word = word;
    }

    /** The {@code WWW-Authenticate} value a 401 carries. */
    public String challenge() {
      return word + " realm=\"acceld\"";
    }
  }

  /** Who a request authenticated as: the user for basic, nobody in particular for bearer. */
  public record Authenticated(Optional<String> principal) {}

  private record Credential(byte[] digest, Optional<String> principal) {}

  private final Scheme scheme;
  private final List<Credential> credentials;

  private Authenticator(Scheme scheme, List<Credential> credentials) {
    this.scheme = scheme;
    this.credentials = credentials;
  }

  /**
   * The authenticator {@code --mesos-auth} asks for, or none when it is empty.
   *
   * @throws IllegalArgumentException naming the flag, the file and what is wrong with it
   */
  public static Optional<Authenticator> fromFlag(String value) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    int colon = value.indexOf(':');
    String kind = colon < 0 ? value : value.substring(0, colon);
    Scheme scheme =
        switch (kind) {
          case "basic" -> Scheme.BASIC;
          case "bearer" -> Scheme.BEARER;
          default ->
              throw new IllegalArgumentException(
                  "--mesos-auth must be basic:FILE or bearer:FILE, not " + quote(value));
        };
    if (colon < 0 || colon == value.length() - 1) {
      throw new IllegalArgumentException("--mesos-auth " + kind + ": names no credentials file");
    }
    return Optional.of(load(scheme, Path.of(value.substring(colon + 1))));
  }

  /** Reads {@code file} after checking that only its owner may read or write it. */
  public static Authenticator load(Scheme scheme, Path file) {
    Set<PosixFilePermission> mode;
    List<String> lines;
    try {
      mode = Files.getPosixFilePermissions(file);
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException | UnsupportedOperationException e) {
      throw new IllegalArgumentException("--mesos-auth file " + file + " cannot be read: " + e, e);
    }
    Set<PosixFilePermission> ownerOnly =
        Set.of(
            PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE);
    if (!ownerOnly.containsAll(mode)) {
      throw new IllegalArgumentException(
          "--mesos-auth file "
              + file
              + " has mode "
              + octal(mode)
              + "; it holds secrets, so it must be 0600 or stricter (chmod 600 "
              + file
              + ")");
    }
    List<Credential> credentials = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      if (scheme == Scheme.BASIC) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new IllegalArgumentException(
              "--mesos-auth file " + file + " line " + (i + 1) + " is not user:password");
        }
        credentials.add(new Credential(sha256(line), Optional.of(line.substring(0, colon))));
      } else {
        credentials.add(new Credential(sha256(line.strip()), Optional.empty()));
      }
    }
    if (credentials.isEmpty()) {
      throw new IllegalArgumentException("--mesos-auth file " + file + " holds no credentials");
    }
    return new Authenticator(scheme, List.copyOf(credentials));
  }

  public Scheme scheme() {
    return scheme;
  }

  /** Whom the {@code Authorization} header authenticates, or empty (answer 401). */
  public Optional<Authenticated> authenticate(Optional<String> authorization) {
    Optional<byte[]> presented = authorization.flatMap(this::presentedDigest);
    if (presented.isEmpty()) {
      return Optional.empty();
    }
    Credential match = null;
    for (Credential credential : credentials) {
      // No early exit: every credential is compared, whichever matches.
      if (MessageDigest.isEqual(credential.digest(), presented.get()) && match == null) {
        match = credential;
      }
    }
    return match == null ? Optional.empty() : Optional.of(new Authenticated(match.principal()));
  }

  private Optional<byte[]> presentedDigest(String header) {
    String prefix = (scheme == Scheme.BASIC ? "Basic" : "Bearer") + " ";
    if (header.length() <= prefix.length()
        || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return Optional.empty();
    }
    String value = header.substring(prefix.length()).strip();
    if (scheme == Scheme.BEARER) {
      return Optional.of(sha256(value));
    }
    try {
      return Optional.of(
          sha256(new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String octal(Set<PosixFilePermission> mode) {
    int bits = 0;
    for (PosixFilePermission p : mode) {
      bits |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0, the 0400 bit
    }
    return String.format("%04o", bits);
  }

  private static String quote(String value) {
    return io.acceld.util.ClientText.quote(value);
  }
}
