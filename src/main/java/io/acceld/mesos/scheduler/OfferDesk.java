package io.acceld.mesos.scheduler;

import io.acceld.inventory.Device;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offers: built from what is free, sent to one framework at a time, rescinded when a device in
 * them stops being available, declined (with a filter), and taken by an ACCEPT.
 *
 * <p>{@code lock} is the master's one lock (see {@link MesosMaster}), passed in: it guards the
 * offer book and the round-robin turn here, and the {@link FrameworkTable} and {@link
 * LaunchesInFlight} this reads, which other parts change under the same lock. An allocation reads
 * the ledger's availability under it, since an ACCEPT leases under it. Allocations run on the
 * master's timer thread.
 */
final class OfferDesk {
  private static final Logger log = LoggerFactory.getLogger(OfferDesk.class);

  private final Object lock;
  private final FrameworkTable frameworks;
  private final LaunchesInFlight launches;
  private final DeviceLedger ledger;
  private final TaskBook book;
  private final TaskLauncher launcher;
  private final OfferFactory offerFactory;
  private final Quantities nodeScalars;
  private final Clock clock;
  private final BooleanSupplier mayOffer;
  private final boolean filterGpuResources;
  private final ScheduledExecutorService timers;
  private final AtomicBoolean allocationQueued = new AtomicBoolean();
  private final AtomicLong rescinded = new AtomicLong();

  @GuardedBy("lock")
  private final OfferBook offers;

  /** Where the next allocation starts in the frameworks' order, so each gets its turn. */
  @GuardedBy("lock")
  private int nextFirst;

  /**
   * @param lock the master's one lock (see the class comment)
   * @param mayOffer false until offering is safe (see {@link MesosMaster#open})
   * @param timers the master's timer thread, where allocations run
   */
  OfferDesk(
      Object lock,
      FrameworkTable frameworks,
      LaunchesInFlight launches,
      OfferBook offers,
      DeviceLedger ledger,
      TaskBook book,
      TaskLauncher launcher,
      OfferFactory offerFactory,
      Quantities nodeScalars,
      Clock clock,
      BooleanSupplier mayOffer,
      boolean filterGpuResources,
      ScheduledExecutorService timers) {
    this.lock = lock;
    this.frameworks = frameworks;
    this.launches = launches;
    this.offers = offers;
    this.ledger = ledger;
    this.book = book;
    this.launcher = launcher;
    this.offerFactory = offerFactory;
    this.nodeScalars = nodeScalars;
    this.clock = clock;
    this.mayOffer = mayOffer;
    this.filterGpuResources = filterGpuResources;
    this.timers = timers;
  }

  /** RESCIND events sent since this start. */
  long rescinded() {
    return rescinded.get();
  }

  @GuardedBy("lock")
  int outstanding() {
    return offers.outstanding();
  }

  @GuardedBy("lock")
  List<OutstandingOffer> all() {
    return offers.all();
  }

  /** Allocates soon on the timer thread; requests while one is queued are merged into it. */
  void queueAllocation() {
    if (allocationQueued.compareAndSet(false, true)) {
      try {
        timers.execute(
            () -> {
              allocationQueued.set(false);
              allocateSafely();
            });
      } catch (RejectedExecutionException closed) {
        // shutting down
      }
    }
  }

  /** One allocation; an error is logged, so that the periodic loop running this goes on. */
  void allocateSafely() {
    try {
      allocate();
    } catch (RuntimeException e) {
      log.error("Making offers failed", e);
    }
  }

  /**
   * Offers everything free to one framework at a time, taking turns, as Mesos's allocator does with
   * a single agent: connected, no outstanding offer, a role not suppressed, not held back by a
   * filter, and (with the GPU filter on) GPU_RESOURCES if the node has GPUs.
   */
  private void allocate() {
    if (!mayOffer.getAsBoolean()) {
      return;
    }
    synchronized (lock) {
      List<Framework> order = new ArrayList<>(frameworks.all());
      if (order.stream().noneMatch(Framework::isConnected)) {
        // Nobody to offer to, the bridge's usual idle state: the tick reads nothing more. A
        // framework's SUBSCRIBE makes its own first offer, so none waits for a tick.
        return;
      }
      // Read under the lock: an ACCEPT leases under it, and an availability read before it would
      // offer the devices that ACCEPT just leased.
      Availability availability = ledger.current();
      OfferCandidate candidate =
          OfferCandidate.of(availability, offers.offeredDevices(), freeScalars(true));
      if (!candidate.worthOffering()) {
        return;
      }
      Instant now = clock.instant();
      int first = Math.floorMod(nextFirst, order.size());
      for (int i = 0; i < order.size(); i++) {
        Framework fw = order.get((first + i) % order.size());
        if (!fw.isConnected() || offers.hasOffer(fw.id)) {
          continue;
        }
        if (filterGpuResources
            && candidate.hasGpus()
            && !fw.has(FrameworkInfo.Capability.Type.GPU_RESOURCES)) {
          continue;
        }
        Optional<String> role = fw.offerableRole();
        if (role.isEmpty() || fw.filtered(candidate.amounts(), now)) {
          continue;
        }
        Offer offer =
            offerFactory.build(
                OfferID.newBuilder().setValue(offers.newId()).build(),
                fw,
                role.get(),
                candidate.amounts(),
                candidate.attributes(),
                launcher.executorsOf(fw.id));
        offers.add(
            new OutstandingOffer(offer, role.get(), candidate.amounts(), candidate.devices()));
        nextFirst = first + i + 1;
        fw.send(
            Event.newBuilder()
                .setType(Event.Type.OFFERS)
                .setOffers(Event.Offers.newBuilder().addOffers(offer))
                .build());
        return; // everything free went to this framework
      }
    }
  }

  /**
   * A change the Mesos side did not make (health, presence, a kubelet lease): every outstanding
   * offer with a device that is no longer available is rescinded, and what is left re-offered.
   */
  void onAvailability(Availability availability) {
    List<PendingEvent> rescinds = new ArrayList<>();
    synchronized (lock) {
      for (OutstandingOffer o : offers.all()) {
        boolean stale = false;
        for (String id : o.allDevices()) {
          Optional<Device> d = availability.inventory().device(id);
          if (d.isEmpty() || !availability.isAvailable(d.get())) {
            stale = true;
            break;
          }
        }
        Framework fw = frameworks.get(o.framework());
        if (stale) {
          offers.remove(o.id());
          if (fw != null) {
            rescinds.add(new PendingEvent(fw, rescind(o)));
          }
        }
      }
      rescinds.forEach(PendingEvent::send);
    }
    queueAllocation();
  }

  /** DECLINE: the offers go back, and a filter holds what they held back from the framework. */
  void decline(FrameworkID id, List<OfferID> offerIds, Filters filters, boolean hasFilters) {
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw == null) {
        return;
      }
      Quantities declined = Quantities.NONE;
      for (OfferID offerId : offerIds) {
        Optional<OutstandingOffer> o = offers.get(offerId.getValue());
        if (o.isPresent() && o.get().framework().equals(id)) {
          offers.remove(offerId.getValue());
          declined = declined.plus(o.get().amounts());
        }
      }
      addFilter(fw, declined, filters, hasFilters);
    }
    queueAllocation();
  }

  /** Holds {@code declined} back from {@code fw} for the filter's refuse_seconds (Mesos's 5). */
  @GuardedBy("lock")
  void addFilter(Framework fw, Quantities declined, Filters filters, boolean hasFilters) {
    double seconds =
        DeclineFilter.refuseSeconds(
            hasFilters && filters.hasRefuseSeconds(), filters.getRefuseSeconds());
    if (seconds > 0 && !declined.isEmpty()) {
      fw.filters.add(
          new DeclineFilter(declined, clock.instant().plusMillis((long) (seconds * 1000))));
    }
  }

  /** Forgets a framework's offers without a word: its stream that saw them is gone. */
  @GuardedBy("lock")
  void forget(FrameworkID id) {
    offers.of(id).forEach(o -> offers.remove(o.id()));
  }

  /** Takes back all of {@code fw}'s offers; the RESCINDs are for the caller to send. */
  @GuardedBy("lock")
  List<PendingEvent> rescindAll(Framework fw) {
    List<PendingEvent> rescinds = new ArrayList<>();
    for (OutstandingOffer o : offers.of(fw.id)) {
      offers.remove(o.id());
      rescinds.add(new PendingEvent(fw, rescind(o)));
    }
    return rescinds;
  }

  /**
   * Takes the ACCEPT's offers out of the book. All of them go, valid or not (as in Mesos, an ACCEPT
   * that names a bad offer gives back the good ones).
   *
   * @param used receives the valid ones
   * @return the first problem with the offers, if any
   */
  @GuardedBy("lock")
  Optional<String> take(Framework fw, List<OfferID> ids, List<OutstandingOffer> used) {
    Optional<String> error = ids.isEmpty() ? Optional.of("No offers specified") : Optional.empty();
    Set<String> seen = new LinkedHashSet<>();
    for (OfferID offerId : ids) {
      String shown = ClientText.quote(offerId.getValue());
      if (!seen.add(offerId.getValue())) {
        error = error.or(() -> Optional.of("Offer " + shown + " appears more than once"));
        continue;
      }
      Optional<OutstandingOffer> o = offers.get(offerId.getValue());
      if (o.isEmpty()) {
        error = error.or(() -> Optional.of("Offer " + shown + " is no longer valid"));
      } else if (!o.get().framework().equals(fw.id)) {
        error = error.or(() -> Optional.of("Offer " + shown + " has invalid framework"));
      } else {
        offers.remove(offerId.getValue());
        used.add(o.get());
      }
    }
    return error;
  }

  /** What live tasks, launches in flight and (if asked) outstanding offers leave of the scalars. */
  @GuardedBy("lock")
  Quantities freeScalars(boolean countOffers) {
    Quantities used = Quantities.NONE;
    Set<Holder.MesosTask> counted = new HashSet<>();
    // A custom executor's own resources are in use once, however many of its tasks run.
    Set<String> executors = new HashSet<>();
    for (TaskView t : book.tasks()) {
      if (!t.isTerminal()) {
        used = used.plus(scalarsOf(t.task().getResourcesList()));
        counted.add(t.holder());
        if (t.executorInfo().isPresent()
            && executors.add(t.frameworkId() + "/" + t.executor().getValue())) {
          used = used.plus(scalarsOf(t.executorInfo().get().getResourcesList()));
        }
      }
    }
    used = launches.plusUsedBesides(used, counted);
    Quantities free = nodeScalars.minus(used);
    return countOffers ? free.minus(offers.offered()) : free;
  }

  /** Only CPUs, memory and disk: devices are accounted by the ledger. */
  static Quantities scalarsOf(List<Resource> resources) {
    Quantities all = Quantities.ofScalars(resources);
    Map<String, Double> kept = new HashMap<>();
    for (String name : Reserve.NAMES) {
      kept.put(name, all.get(name));
    }
    return new Quantities(kept);
  }

  private Event rescind(OutstandingOffer o) {
    rescinded.incrementAndGet();
    return Event.newBuilder()
        .setType(Event.Type.RESCIND)
        .setRescind(Event.Rescind.newBuilder().setOfferId(o.offer().getId()))
        .build();
  }
}
