package io.acceld.ledger;

import java.util.List;

/** The answer to a lease request: every slot granted, or nothing and the reasons why. */
public sealed interface LeaseResult {
  boolean granted();

  /**
   * All requested slots now belong to the holder.
   *
   * @param leases the holder's leases on the requested slots
   * @param version the ledger version that holds them (see {@link DeviceLedger#awaitPersisted})
   */
  record Granted(List<Lease> leases, long version) implements LeaseResult {
    public Granted {
      leases = List.copyOf(leases);
    }

    @Override
    public boolean granted() {
      return true;
    }
  }

  /**
   * Nothing was leased.
   *
   * @param reasons one sentence per refused slot, naming the device and, when held, its holder
   */
  record Refused(List<String> reasons) implements LeaseResult {
    public Refused {
      reasons = List.copyOf(reasons);
    }

    @Override
    public boolean granted() {
      return false;
    }

    /** All reasons in one sentence. */
    public String message() {
      return String.join("; ", reasons);
    }
  }
}
