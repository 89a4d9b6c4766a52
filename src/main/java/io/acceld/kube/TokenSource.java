package io.acceld.kube;

import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.Optional;

/** Where a request's bearer token comes from. */
public sealed interface TokenSource {
  /** The token to send now; empty to send none. */
  Optional<String> token();

  /** No bearer token (a client certificate, or anonymous). */
  record None() implements TokenSource {
    @Override
    public Optional<String> token() {
      return Optional.empty();
    }

    @Override
    public String toString() {
      return "no token";
    }
  }

  /** A token written in the kubeconfig. */
  record Fixed(String value) implements TokenSource {
    public Fixed {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public Optional<String> token() {
      return Optional.of(value);
    }

    @Override
    public String toString() {
      return "a token"; // never the token itself
    }
  }

  /**
   * A token file the kubelet rotates in place (a projected service-account token lives an hour):
   * re-read whenever its modification time changes, so a request never sends an expired token for
   * long. If it cannot be read, the last token read is sent (the server's 401 then says so).
   */
  final class RotatingFile implements TokenSource {
    private final Path file;

    @GuardedBy("this")
    private FileTime readAt;

    @GuardedBy("this")
    private String value = "";

    public RotatingFile(Path file) {
      this.file = Objects.requireNonNull(file, "file");
    }

    public Path file() {
      return file;
    }

    @Override
    public synchronized Optional<String> token() {
      try {
        FileTime modified = Files.getLastModifiedTime(file);
        if (!modified.equals(readAt)) {
          value = Files.readString(file, StandardCharsets.UTF_8).strip();
          readAt = modified;
        }
      } catch (IOException e) {
        // keep the last one: the answer's 401 names the problem better than we can here
      }
      return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    @Override
    public String toString() {
      return "the token in " + file;
    }
  }
}
