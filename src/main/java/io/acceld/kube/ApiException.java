package io.acceld.kube;

import java.util.Objects;

/**
 * A request to the API server that did not succeed, classified by what the caller should do about
 * it. The message is safe to log: the server's own words ({@code Status.message}) are escaped and
 * bounded.
 */
public final class ApiException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What went wrong, by the answer's status (or its absence). */
  public enum Kind {
    /** 401: the token or client certificate is not accepted. */
    UNAUTHORIZED("unauthorized"),
    /** 403: RBAC does not allow the verb. */
    FORBIDDEN("forbidden"),
    /** 404. */
    NOT_FOUND("not_found"),
    /** 409: someone else changed the object since we read it (or it exists). */
    CONFLICT("conflict"),
    /** 410: the resourceVersion is too old; list again. */
    GONE("gone"),
    /** 422: the object was refused by validation. */
    INVALID("invalid"),
    /** 429 and 5xx: the server is overloaded or failing; retry later. */
    SERVER("server"),
    /** No answer: refused, reset, timed out. */
    CONNECTION("connection"),
    /** An answer larger than we read, or not the JSON we expect. */
    BAD_RESPONSE("bad_response"),
    /** Any other status. */
    OTHER("other");

    private final String tag;

    Kind(String tag) {
      this.tag = tag;
    }

    /** The metric tag value. */
    public String tag() {
      return tag;
    }

    /** The kind of an HTTP status that is not a success. */
    public static Kind ofStatus(int status) {
      return switch (status) {
        case 401 -> UNAUTHORIZED;
        case 403 -> FORBIDDEN;
        case 404 -> NOT_FOUND;
        case 409 -> CONFLICT;
        case 410 -> GONE;
        case 422 -> INVALID;
        default -> status == 429 || status >= 500 ? SERVER : OTHER;
      };
    }
  }

  private final Kind kind;
  private final int status;

  public ApiException(Kind kind, int status, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.status = status;
  }

  public ApiException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.status = 0;
  }

  public Kind kind() {
    return kind;
  }

  /** The HTTP status, 0 when there was no answer. */
  public int status() {
    return status;
  }
}
