package io.acceld.agent;

import java.util.Objects;

/**
 * The agent cannot start, for a reason the operator can fix: the message is one line naming the
 * setting and the fix, and the command exits with {@link Kind#exitCode()} (documented in the
 * README) instead of printing a stack trace.
 */
public final class StartupFailure extends RuntimeException {
  /** Why the agent did not start, each with its own exit code. */
  public enum Kind {
    /** {@code --fail-on-init-error}: NVML did not load or {@code --expect-devices} was not met. */
    INIT_ERROR(3);

    private final int exitCode;

    Kind(int exitCode) {
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  private final Kind kind;

  public StartupFailure(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind);
  }

  public StartupFailure(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
