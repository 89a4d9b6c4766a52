package io.acceld.mesos.http;

import java.util.Objects;
import java.util.Optional;

/**
 * The per-executor credentials of {@code --mesos-auth}: each executor the agent spawns is given a
 * random token in {@code MESOS_EXECUTOR_AUTHENTICATION_TOKEN}, as Mesos gives its executors a JWT,
 * and may call the executor API with {@code Authorization: Bearer <token>} for itself only. The
 * operator's credentials are not handed to executors: a workload holding them could launch or kill
 * any other framework's tasks.
 */
@FunctionalInterface
public interface ExecutorTokens {
  /** No executor holds a token: only the operator's credentials are accepted. */
  ExecutorTokens NONE = token -> Optional.empty();

  /** The executor a token was issued to. */
  record Identity(String frameworkId, String executorId) {
    public Identity {
      Objects.requireNonNull(frameworkId, "frameworkId");
      Objects.requireNonNull(executorId, "executorId");
    }
  }

  /**
   * Whose {@code token} is, or empty when no live executor holds it. Implementations compare in
   * constant time, so timing does not tell a guesser how close it came.
   */
  Optional<Identity> executorOf(String token);
}
