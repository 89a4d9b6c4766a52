package io.acceld.inventory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the current snapshot and tells subscribers what changed. Listeners run on the publishing
 * thread, in subscription order, and must be quick (hand the work to their own thread if not); a
 * listener that throws is logged and does not stop the others.
 */
public final class InventoryStore {
  private static final Logger log = LoggerFactory.getLogger(InventoryStore.class);

  /** Receives each non-empty diff together with the snapshot it leads to. */
  @FunctionalInterface
  public interface Listener {
    void onChange(Inventory current, InventoryDiff diff);
  }

  private final AtomicReference<Inventory> current = new AtomicReference<>(Inventory.EMPTY);
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final Object publishLock = new Object();

  public Inventory current() {
    return current.get();
  }

  public void subscribe(Listener listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  public void unsubscribe(Listener listener) {
    listeners.remove(listener);
  }

  /**
   * Makes {@code next} the current snapshot and notifies listeners if anything changed.
   *
   * @return the diff from the previous snapshot (possibly empty)
   */
  public InventoryDiff publish(Inventory next) {
    synchronized (publishLock) {
      Inventory previous = current.getAndSet(next);
      InventoryDiff diff = InventoryDiff.between(previous, next);
      if (!diff.isEmpty()) {
        for (Listener l : listeners) {
          try {
            l.onChange(next, diff);
          } catch (RuntimeException e) {
            log.error("Inventory listener {} failed", l, e);
          }
        }
      }
      return diff;
    }
  }
}
