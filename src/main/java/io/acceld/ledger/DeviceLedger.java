package io.acceld.ledger;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.ReplicaId;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sole owner of leases: the only object that may say "device X is held by H". Every publisher
 * (the kubelet side, the Mesos bridge, later a DRA driver) leases through it, and it follows the
 * inventory, so that what it publishes, {@link Availability}, is the one view of what is present,
 * healthy and free.
 *
 * <p>Rules, enforced here and nowhere else:
 *
 * <ul>
 *   <li>A lease request is atomic: every slot is granted or none is, and a refusal names each
 *       device and its current holder.
 *   <li>A slot has at most one holder. A whole-device lease overlaps every replica of the device,
 *       so a GPU with any kubelet replica leased is not available to Mesos, and a GPU Mesos holds
 *       has no replica to give the kubelet.
 *   <li>A device leased by one side ({@link Publisher}) is never leased to another until released.
 *       Within the kubelet side the kubelet's device manager is the authority, so a new kubelet
 *       lease takes over an overlapping kubelet lease.
 *   <li>Release is idempotent.
 * </ul>
 *
 * <p>Every change produces a new {@link Availability} (with a higher version). The {@link
 * LeaseStore} is handed each one under the lock (it writes the checkpoint on its own thread);
 * listeners get them on the {@code acceld-ledger} thread, in order, always ending with the newest
 * (a burst may be folded into its last snapshot): inventory changes at once, lease changes within
 * {@link #LEASE_COALESCE}. Lease calls therefore cost memory work only, which keeps the kubelet's
 * Allocate and the Mesos bridge's ACCEPT independent of each other and of listeners.
 */
public final class DeviceLedger implements InventoryStore.Listener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeviceLedger.class);

  /** Receives each new snapshot. Called on the ledger's own thread; must be quick. */
  @FunctionalInterface
  public interface Listener {
    void onChange(Availability current);
  }

  private final Clock clock;
  private final LeaseStore store;
  private final Object lock = new Object();

  // Every slot's lease, in grant order.
  @GuardedBy("lock")
  private final Map<ReplicaId, Lease> leases = new LinkedHashMap<>();

  @GuardedBy("lock")
  private Inventory inventory = Inventory.EMPTY;

  @GuardedBy("lock")
  private long version;

  // Double uses already logged, so that each is logged once.
  @GuardedBy("lock")
  private final Set<String> reportedConflicts = new java.util.HashSet<>();

  private volatile Availability current = Availability.EMPTY;

  /** A listener, the side whose own lease changes it does not need, and whether it is behind. */
  private record Subscription(
      Listener listener, Optional<Publisher> ignoring, AtomicBoolean behind) {
    boolean wants(boolean inventoryChanged, Set<Publisher> touched) {
      return inventoryChanged || ignoring.isEmpty() || !touched.equals(Set.of(ignoring.get()));
    }
  }

  private final List<Subscription> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final ScheduledExecutorService dispatcher =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-ledger"));

  /** How long a lease change waits for others to share its delivery (well within 100 ms). */
  static final Duration LEASE_COALESCE = Duration.ofMillis(5);

  /**
   * @param restored leases read back from the checkpoint; they are kept whether or not their
   *     devices are present yet (discovery has not run, or a device is briefly gone)
   */
  public DeviceLedger(Clock clock, LeaseStore store, List<Lease> restored) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.store = Objects.requireNonNull(store, "store");
    synchronized (lock) {
      for (Lease l : restored) {
        List<Lease> overlapping = overlapping(l.slot());
        if (!overlapping.isEmpty()) {
          // Cannot happen with a checkpoint we wrote; refuse to start with a slot held twice.
          log.error(
              "The checkpoint leases {} to {} and also to {}; keeping the first",
              l.slot(),
              overlapping.get(0).describeHolder(),
              l.describeHolder());
          continue;
        }
        leases.put(l.slot(), l);
      }
      current = new Availability(version, inventory, List.copyOf(leases.values()));
    }
  }

  /** A ledger with no leases that keeps nothing: for tests of what follows it. */
  public static DeviceLedger inMemory(Clock clock) {
    return new DeviceLedger(clock, LeaseStore.NONE, List.of());
  }

  public Availability current() {
    return current;
  }

  /**
   * Subscribes {@code listener}; it gets the current snapshot first (on the ledger thread), then
   * every change.
   */
  public void subscribe(Listener listener) {
    subscribe(listener, Optional.empty());
  }

  /**
   * As {@link #subscribe(Listener)}, but changes that only move {@code side}'s own leases are not
   * delivered: the kubelet side shows the kubelet nothing different when the kubelet's own leases
   * change, and skipping them keeps a burst of Allocates from waking anyone.
   */
  public void subscribeIgnoring(Publisher side, Listener listener) {
    subscribe(listener, Optional.of(side));
  }

  private void subscribe(Listener listener, Optional<Publisher> ignoring) {
    listeners.add(
        new Subscription(Objects.requireNonNull(listener), ignoring, new AtomicBoolean()));
    dispatcher.execute(() -> deliver(listener, current));
  }

  /** Follows the inventory: a device's presence and health are part of availability. */
  @Override
  public void onChange(Inventory next, InventoryDiff diff) {
    synchronized (lock) {
      inventory = next;
      changed(true, Set.of());
    }
  }

  /** One holder's part of a lease call. */
  public record Request(Holder holder, List<ReplicaId> slots, String why) {
    public Request {
      Objects.requireNonNull(holder, "holder");
      slots = List.copyOf(slots);
      Objects.requireNonNull(why, "why");
    }
  }

  /**
   * Leases every slot in {@code slots} to {@code holder}, or none of them.
   *
   * @param why what hands the devices out, kept with the lease for people
   */
  public LeaseResult lease(Holder holder, List<ReplicaId> slots, String why) {
    return lease(List.of(new Request(holder, slots, why)));
  }

  /**
   * Grants every request (one per holder, such as the containers of one Allocate), or none.
   *
   * <p>A slot is refused when its device is not present, is Unhealthy, or is held by another side
   * (or requested twice by different holders of this call). A slot the holder already has is
   * granted again (a retried call), keeping its original time.
   */
  public LeaseResult lease(List<Request> requests) {
    if (requests.isEmpty() || requests.stream().allMatch(r -> r.slots().isEmpty())) {
      return new LeaseResult.Refused(List.of("no devices were requested"));
    }
    List<Lease> takenOver = new ArrayList<>();
    LeaseResult result = leaseLocked(requests, takenOver);
    // Logged off the lock. A pod's lease taken over means the kubelet reused a device of a pod we
    // had not yet seen go: worth a line. A pending one (the kubelet retried, or reassigned before
    // pod-resources showed the pod) is routine.
    for (Lease old : takenOver) {
      if (old.holder() instanceof Holder.KubeletPod) {
        log.info("The kubelet reassigned {}, which {} held", old.slot(), old.describeHolder());
      } else {
        log.debug("The kubelet reassigned {}, which {} held", old.slot(), old.describeHolder());
      }
    }
    return result;
  }

  private LeaseResult leaseLocked(List<Request> requests, List<Lease> takenOverOut) {
    synchronized (lock) {
      List<String> refused = new ArrayList<>();
      Set<Lease> takenOver = new LinkedHashSet<>();
      Map<ReplicaId, Holder> claimed = new LinkedHashMap<>();
      for (Request request : requests) {
        Holder holder = request.holder();
        for (ReplicaId slot : new LinkedHashSet<>(request.slots())) {
          Device device = inventory.device(slot.deviceId()).orElse(null);
          if (device == null) {
            refused.add("device " + slot + " is not present on this node");
            continue;
          }
          if (!device.isHealthy()) {
            refused.add(
                "device "
                    + slot
                    + " is Unhealthy"
                    + device.healthReason().map(r -> ": " + r).orElse(""));
            continue;
          }
          for (Map.Entry<ReplicaId, Holder> other : claimed.entrySet()) {
            if (other.getKey().overlaps(slot) && !other.getValue().equals(holder)) {
              refused.add("device " + slot + " is requested twice in one call");
            }
          }
          claimed.put(slot, holder);
          List<Lease> holding = new ArrayList<>(overlapping(slot));
          holding.addAll(family(device));
          for (Lease existing : holding) {
            if (existing.holder().equals(holder) && existing.deviceId().equals(slot.deviceId())) {
              continue; // a retried call: its own lease of this very device
            }
            if (holder.publisher().takesOver(existing.holder())) {
              takenOver.add(existing);
            } else if (existing.deviceId().equals(slot.deviceId())) {
              refused.add("device " + slot + " is held by " + existing.describeHolder());
            } else {
              refused.add(
                  "device "
                      + slot
                      + " shares its GPU with "
                      + existing.slot()
                      + ", which is held by "
                      + existing.describeHolder());
            }
          }
        }
      }
      if (!refused.isEmpty()) {
        return new LeaseResult.Refused(refused);
      }
      Instant now = clock.instant();
      boolean changed = false;
      for (Lease old : takenOver) {
        if (leases.remove(old.slot(), old)) {
          changed = true;
          takenOverOut.add(old);
        }
      }
      List<Lease> granted = new ArrayList<>();
      for (Request request : requests) {
        for (ReplicaId slot : new LinkedHashSet<>(request.slots())) {
          Lease existing = leases.get(slot);
          if (existing != null && existing.holder().equals(request.holder())) {
            granted.add(existing);
            continue;
          }
          Optional<String> partOf =
              inventory.device(slot.deviceId()).flatMap(Availability::parentOf);
          Lease lease = new Lease(slot, request.holder(), now, request.why(), partOf);
          leases.put(slot, lease);
          granted.add(lease);
          changed = true;
        }
      }
      if (changed) {
        Set<Publisher> touched = EnumSet.noneOf(Publisher.class);
        requests.forEach(r -> touched.add(r.holder().publisher()));
        changed(false, touched);
      }
      return new LeaseResult.Granted(granted, version);
    }
  }

  /**
   * Releases every lease {@code holder} has. Releasing what is not held is not an error.
   *
   * @return the released leases
   */
  public List<Lease> release(Holder holder) {
    synchronized (lock) {
      List<Lease> released = new ArrayList<>();
      for (Iterator<Lease> it = leases.values().iterator(); it.hasNext(); ) {
        Lease l = it.next();
        if (l.holder().equals(holder)) {
          released.add(l);
          it.remove();
        }
      }
      if (!released.isEmpty()) {
        changed(false, Set.of(holder.publisher()));
      }
      return released;
    }
  }

  /**
   * Brings the kubelet side's leases in line with what the kubelet reports in use (its
   * pod-resources API), which is the truth for that side:
   *
   * <ul>
   *   <li>a slot the kubelet shows in a container becomes that container's lease (a pending lease
   *       is confirmed and keeps its time; a slot we had no lease for, after a lost checkpoint, is
   *       rebuilt);
   *   <li>a pod lease whose slot the kubelet no longer shows is released (the pod is gone);
   *   <li>a pending lease no pod has confirmed after {@code pendingTtl} is released, with a log
   *       line.
   * </ul>
   *
   * A slot the kubelet shows in a pod but another side holds is a double use that should never
   * happen; it is logged as an error and the other side keeps its lease.
   *
   * @param inUse each slot the kubelet reports, and the container that has it
   */
  public void reconcileKubelet(Map<ReplicaId, Holder.KubeletPod> inUse, Duration pendingTtl) {
    synchronized (lock) {
      Instant now = clock.instant();
      boolean changed = false;
      for (Map.Entry<ReplicaId, Holder.KubeletPod> e : inUse.entrySet()) {
        ReplicaId slot = e.getKey();
        Holder.KubeletPod pod = e.getValue();
        Instant since = now;
        String why = "seen in use by the kubelet";
        boolean conflict = false;
        boolean alreadyHeld = false;
        for (Lease existing : overlapping(slot)) {
          if (existing.holder().equals(pod) && existing.slot().equals(slot)) {
            alreadyHeld = true;
          } else if (existing.holder().publisher() != Publisher.KUBELET) {
            conflict = true;
            // Once per pair: the kubelet reports it on every poll until one side lets go.
            if (reportedConflicts.add(slot + " " + pod.name() + " " + existing.holder().name())) {
              log.error(
                  "The kubelet reports {} in use by pod {}, but {} holds it; the lease stays with"
                      + " that holder",
                  slot,
                  pod.name(),
                  existing.describeHolder());
            }
          } else {
            if (existing.holder() instanceof Holder.KubeletPending) {
              since = existing.since();
              why = existing.why();
            }
            leases.remove(existing.slot());
            changed = true;
          }
        }
        if (!conflict && !alreadyHeld) {
          leases.put(slot, new Lease(slot, pod, since, why));
          changed = true;
        }
      }
      for (Iterator<Lease> it = leases.values().iterator(); it.hasNext(); ) {
        Lease l = it.next();
        if (l.holder() instanceof Holder.KubeletPod && !inUse.containsKey(l.slot())) {
          log.info("Released {}: pod {} no longer uses it", l.slot(), l.holder().name());
          it.remove();
          changed = true;
        } else if (l.holder() instanceof Holder.KubeletPending
            && !now.isBefore(l.since().plus(pendingTtl))) {
          log.warn(
              "Released {}: Allocate handed it out at {} but no pod has used it within {}",
              l.slot(),
              l.since(),
              pendingTtl);
          it.remove();
          changed = true;
        }
      }
      if (changed) {
        changed(false, Set.of(Publisher.KUBELET));
      }
    }
  }

  /** Waits until the checkpoint holds {@code version} or later; see {@link LeaseStore}. */
  public boolean awaitPersisted(long version, Duration timeout) throws InterruptedException {
    return store.awaitPersisted(version, timeout);
  }

  // Called with the lock held.
  /**
   * Leases on the rest of {@code device}'s GPU: for a MIG device its GPU leased whole, for a whole
   * GPU any of its MIG devices (by the GPU each lease says it is part of).
   */
  @GuardedBy("lock")
  private List<Lease> family(Device device) {
    Optional<String> parent = Availability.parentOf(device);
    List<Lease> found = new ArrayList<>();
    for (Lease l : leases.values()) {
      if (parent.isPresent()
          ? l.deviceId().equals(parent.get())
          : l.partOf().equals(Optional.of(device.id()))) {
        found.add(l);
      }
    }
    return found;
  }

  private List<Lease> overlapping(ReplicaId slot) {
    List<Lease> found = new ArrayList<>(1);
    if (!slot.isWhole()) {
      Lease whole = leases.get(ReplicaId.whole(slot.deviceId()));
      if (whole != null) {
        found.add(whole);
      }
      Lease same = leases.get(slot);
      if (same != null) {
        found.add(same);
      }
      return found;
    }
    for (Lease l : leases.values()) {
      if (l.slot().overlaps(slot)) {
        found.add(l);
      }
    }
    return found;
  }

  /**
   * Called with the lock held: publish the new state to the store and the listeners.
   *
   * @param urgent an inventory change (health, presence): delivered at once, because it must reach
   *     the kubelet in milliseconds. A lease change is delivered after {@link #LEASE_COALESCE}, so
   *     a burst of Allocates wakes the listeners once, not once per call, on a node whose few cores
   *     serve those calls.
   */
  private void changed(boolean urgent, Set<Publisher> touched) {
    version++;
    Availability next = new Availability(version, inventory, List.copyOf(leases.values()));
    current = next;
    store.save(next);
    boolean anyone = false;
    for (Subscription s : listeners) {
      if (s.wants(urgent, touched)) {
        s.behind().set(true);
        anyone = true;
      }
    }
    if (!anyone) {
      return;
    }
    try {
      if (urgent) {
        dispatcher.execute(this::drain);
      } else if (!drainScheduled.getAndSet(true)) {
        dispatcher.schedule(this::drain, LEASE_COALESCE.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException e) {
      // closed: nobody is listening any more
    }
  }

  /**
   * Hands the newest snapshot to every listener that is behind. Each listener's flag is cleared
   * before {@link #current} is read for it: {@link #changed} sets the snapshot before the flags, so
   * a flag this drain consumes always comes with a snapshot at least that new. Reading the snapshot
   * once for all listeners instead lets a change made while an earlier listener runs set a later
   * one's flag, which this drain would then consume with the older snapshot, leaving the drain that
   * change scheduled nothing to deliver: the change lost until the next one.
   */
  private void drain() {
    drainScheduled.set(false);
    for (Subscription s : listeners) {
      if (s.behind().getAndSet(false)) {
        deliver(s.listener(), current);
      }
    }
  }

  private static void deliver(Listener listener, Availability snapshot) {
    try {
      listener.onChange(snapshot);
    } catch (RuntimeException e) {
      log.error("Ledger listener {} failed", listener, e);
    }
  }

  @Override
  public void close() {
    dispatcher.shutdown();
    try {
      if (!dispatcher.awaitTermination(5, TimeUnit.SECONDS)) {
        dispatcher.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      dispatcher.shutdownNow();
    }
  }
}
