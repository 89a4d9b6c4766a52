package io.acceld.util;

import java.util.Objects;

/**
 * A failure the operator can fix, such as a port in use: the message is one line naming the setting
 * and the fix, and the command exits with {@link Kind#exitCode()} (the README lists the codes)
 * instead of printing a stack trace, which would only bury the one line that matters. The cause, if
 * any, is logged at debug.
 */
public final class OperatorError extends RuntimeException {
  /** What went wrong, each with its own exit code; 1 is any other failure, 2 bad usage. */
  public enum Kind {
    /** {@code --fail-on-init-error}: NVML did not load or {@code --expect-devices} was not met. */
    INIT_ERROR(3),
    /** {@code --metrics-address} cannot be listened on: in use, or not this host's address. */
    CANNOT_LISTEN(4),
    /** {@code devices --agent} or {@code kubelet-probe}: no agent answered there. */
    AGENT_UNREACHABLE(5),
    /** Another acceld already serves this node's resources (holds their socket locks). */
    ALREADY_RUNNING(6);

    private final int exitCode;

    Kind(int exitCode) {
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  private final Kind kind;

  public OperatorError(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind);
  }

  public OperatorError(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
