package io.acceld.ledger;

import java.time.Duration;

/**
 * Where the ledger's leases are kept across restarts. {@link #save} is called with the ledger's
 * lock held, after every change, so it must only hand the snapshot over (the checkpoint is written
 * on its own thread, and a burst of changes costs one write).
 */
public interface LeaseStore {
  /** Keeps nothing: for one-shot commands and tests of the ledger alone. */
  LeaseStore NONE =
      new LeaseStore() {
        @Override
        public void save(Availability snapshot) {}

        @Override
        public boolean awaitPersisted(long version, Duration timeout) {
          return true;
        }
      };

  /** Schedules {@code snapshot}'s leases to be written; never blocks. */
  void save(Availability snapshot);

  /**
   * Waits until a snapshot at least as new as {@code version} is durable.
   *
   * @return false if that did not happen within {@code timeout}, or (a store that writes) as soon
   *     as a write of that version failed
   */
  boolean awaitPersisted(long version, Duration timeout) throws InterruptedException;
}
