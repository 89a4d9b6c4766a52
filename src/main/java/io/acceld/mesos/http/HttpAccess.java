package io.acceld.mesos.http;

import java.util.Objects;
import java.util.Optional;

/**
 * Who may call the Mesos APIs: the operator's credentials ({@code --mesos-auth}), whether a
 * non-loopback address may serve without them ({@code --mesos-allow-insecure}), and the executors'
 * own tokens, accepted on the executor API for calls naming that executor.
 */
public record HttpAccess(
    Optional<Authenticator> auth, boolean allowInsecure, ExecutorTokens executorTokens) {
  public HttpAccess {
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(executorTokens, "executorTokens");
  }

  /** No authentication, so only a loopback address may be served. */
  public static HttpAccess loopbackOnly() {
    return new HttpAccess(Optional.empty(), false, ExecutorTokens.NONE);
  }

  /** The operator's settings, without executor tokens. */
  public static HttpAccess of(Optional<Authenticator> auth, boolean allowInsecure) {
    return new HttpAccess(auth, allowInsecure, ExecutorTokens.NONE);
  }

  public HttpAccess withExecutorTokens(ExecutorTokens tokens) {
    return new HttpAccess(auth, allowInsecure, tokens);
  }
}
