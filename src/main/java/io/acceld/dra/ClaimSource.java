package io.acceld.dra;

/**
 * Where prepare reads a ResourceClaim: the API server, in production. Only the claim's namespace,
 * name and UID arrive from the kubelet; what was allocated is in the claim's status.
 */
public interface ClaimSource {
  /**
   * The claim {@code namespace/name} as the API server has it now.
   *
   * @throws ClaimLookupException when it cannot be read or does not parse; the message says why,
   *     for the claim's own error in the kubelet's answer
   */
  AllocatedClaim get(String namespace, String name) throws ClaimLookupException;

  /** Why a claim could not be read; a per-claim error, never the call's. */
  final class ClaimLookupException extends Exception {
    private static final long serialVersionUID = 1L;

    public ClaimLookupException(String message) {
      super(message);
    }

    public ClaimLookupException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
