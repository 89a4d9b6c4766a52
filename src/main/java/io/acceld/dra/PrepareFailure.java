package io.acceld.dra;

import java.util.Locale;

/** Why a claim could not be prepared, as a metrics label. */
public enum PrepareFailure {
  /** The kubelet's namespace, name or UID is empty or too long. */
  INVALID_REQUEST,
  /** The claim could not be read from the API server. */
  LOOKUP,
  /** The claim now has another UID: deleted and created again. */
  REPLACED,
  /** The claim has no allocation. */
  NOT_ALLOCATED,
  /** The allocation has no device of this driver: another driver's claim. */
  NOT_THIS_DRIVER,
  /** A result of this driver names another node's pool, or a device this node does not have. */
  NOT_ON_THIS_NODE,
  /** The ledger refused a device: held by another holder, Unhealthy or gone. */
  CONFLICT,
  /** The lease could not be written to the checkpoint in time. */
  PERSIST,
  /** The claim's CDI spec could not be written. */
  CDI,
  /** The call carried more claims than a call may. */
  TOO_MANY_CLAIMS;

  /** The label value: {@code not_allocated}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
