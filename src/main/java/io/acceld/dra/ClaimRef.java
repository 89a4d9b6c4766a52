package io.acceld.dra;

import java.util.Objects;

/**
 * A claim as the kubelet names it in NodePrepareResources and NodeUnprepareResources: three strings
 * from a client, not yet checked ({@link ClaimRequests#problem} checks them).
 *
 * @param namespace the claim's namespace
 * @param uid the claim's UID, the key of the kubelet's answer
 * @param name the claim's name
 */
public record ClaimRef(String namespace, String uid, String name) {
  public ClaimRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(name, "name");
  }

  /** {@code namespace/name} for messages (only after {@link ClaimRequests#problem} passed). */
  public String describe() {
    return namespace + "/" + name;
  }
}
