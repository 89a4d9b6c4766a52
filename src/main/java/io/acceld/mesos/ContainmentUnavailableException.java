package io.acceld.mesos;

import java.io.IOException;

/**
 * The Mesos bridge cannot contain tasks on this node as configured (not root, a cgroup controller
 * or BPF missing): it does not start, and the message names what is missing and the setting that
 * does without it. The agent's other sides keep serving.
 */
public final class ContainmentUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;

  public ContainmentUnavailableException(String message) {
    super(message);
  }
}
