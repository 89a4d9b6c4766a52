package io.acceld.ledger;

import io.acceld.util.AtomicFiles;
import io.acceld.util.OperatorError;
import io.acceld.util.PidLock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the ledger over {@code --state-dir}: creates the directory owner-only, restores the leases
 * from the checkpoint before anything serves, and keeps writing it. A checkpoint that cannot be
 * trusted (corrupt, truncated, empty, unreadable, from a newer agent) is logged once at ERROR with
 * its path and what was wrong, moved aside (never deleted), and the agent starts with no leases:
 * the kubelet's leases come back from its pod-resources API at the first poll. It never starts with
 * a half-read ledger, and no state-directory problem stops the agent, except one: another agent
 * holding the directory's lock ({@code acceld.lock}). Two agents over one checkpoint would each
 * overwrite the other's leases, so the second exits before it reads anything.
 */
public final class LedgerStorage implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LedgerStorage.class);

  /** The state directory's lock file, held for as long as the agent runs. */
  public static final String LOCK_FILE = "acceld.lock";

  private final DeviceLedger ledger;
  private final CheckpointWriter writer;
  private final Optional<PidLock> lock;

  private LedgerStorage(DeviceLedger ledger, CheckpointWriter writer, Optional<PidLock> lock) {
    this.ledger = ledger;
    this.writer = writer;
    this.lock = lock;
  }

  /**
   * @throws OperatorError (ALREADY_RUNNING) when another agent holds {@code stateDir}
   */
  public static LedgerStorage open(Path stateDir, Clock clock) {
    LeaseCheckpoint checkpoint = new LeaseCheckpoint(stateDir);
    Optional<PidLock> lock = Optional.empty();
    try {
      AtomicFiles.createDirectories(stateDir, AtomicFiles.DIRECTORY_OWNER_ONLY);
      lock = Optional.of(PidLock.acquire(stateDir.resolve(LOCK_FILE)));
    } catch (PidLock.HeldElsewhere e) {
      throw new OperatorError(
          OperatorError.Kind.ALREADY_RUNNING,
          e.getMessage()
              + ": it runs over --state-dir "
              + stateDir
              + "; this agent exits without touching its leases, sockets or CDI specs");
    } catch (IOException e) {
      log.error(
          "Cannot create the state directory {} (--state-dir): {}; leases are kept in memory and"
              + " written once it can be created",
          stateDir,
          e.toString());
    }
    List<Lease> restored = restore(checkpoint, clock);
    CheckpointWriter writer = new CheckpointWriter(checkpoint, clock);
    DeviceLedger ledger = new DeviceLedger(clock, writer, restored);
    if (!restored.isEmpty()) {
      log.info("Restored {} lease(s) from {}", restored.size(), checkpoint.file());
    }
    return new LedgerStorage(ledger, writer, lock);
  }

  private static List<Lease> restore(LeaseCheckpoint checkpoint, Clock clock) {
    try {
      return checkpoint.read();
    } catch (LeaseCheckpoint.UnusableException e) {
      Optional<Path> aside = checkpoint.moveAside(clock.instant());
      log.error(
          "The lease checkpoint {} {}; {}; starting with no leases (the kubelet's come back from its"
              + " pod-resources API)",
          checkpoint.file(),
          e.getMessage(),
          aside.map(p -> "moved it aside to " + p).orElse("it could not be moved aside"));
      return List.of();
    }
  }

  public DeviceLedger ledger() {
    return ledger;
  }

  public CheckpointWriter writer() {
    return writer;
  }

  /** Stops the listeners, then writes what is pending one last time. */
  @Override
  public void close() {
    ledger.close();
    writer.close();
    lock.ifPresent(
        l -> {
          try {
            l.close();
          } catch (IOException e) {
            log.warn("Cannot release {}: {}", l.file(), e.toString());
          }
        });
  }
}
