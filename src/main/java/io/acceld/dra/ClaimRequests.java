package io.acceld.dra;

import io.acceld.util.ClientText;
import java.util.Optional;

/**
 * The bounds of what the kubelet may send, checked before anything is looked up: a claim's
 * namespace (a DNS label), name (a DNS subdomain) and UID are non-empty and no longer than
 * Kubernetes allows, and a call carries at most {@link #MAX_CLAIMS_PER_CALL} claims (the kubelet
 * sends one pod's claims of this driver).
 */
public final class ClaimRequests {
  /** A pod has far fewer claims; more in one call is not a kubelet. */
  public static final int MAX_CLAIMS_PER_CALL = 256;

  static final int MAX_NAMESPACE = 63;
  static final int MAX_NAME = 253;

  /** Kubernetes UIDs are 36 characters; leave room, bound the rest. */
  static final int MAX_UID = 128;

  private ClaimRequests() {}

  /** What is wrong with {@code claim}'s identity, for its error; empty if nothing. */
  public static Optional<String> problem(ClaimRef claim) {
    Optional<String> p = field("namespace", claim.namespace(), MAX_NAMESPACE);
    if (p.isEmpty()) {
      p = field("name", claim.name(), MAX_NAME);
    }
    if (p.isEmpty()) {
      p = field("uid", claim.uid(), MAX_UID);
    }
    return p;
  }

  private static Optional<String> field(String what, String value, int max) {
    if (value.isEmpty()) {
      return Optional.of("the claim's " + what + " is empty");
    }
    if (value.length() > max) {
      return Optional.of(
          "the claim's "
              + what
              + " "
              + ClientText.quote(value)
              + " is "
              + value.length()
              + " characters; at most "
              + max
              + " are allowed");
    }
    if (value.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      return Optional.of(
          "the claim's " + what + " " + ClientText.quote(value) + " has a character outside ASCII");
    }
    return Optional.empty();
  }
}
