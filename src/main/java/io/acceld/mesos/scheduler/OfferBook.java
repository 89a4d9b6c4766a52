package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.FrameworkID;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The outstanding offers and the IDs of offers that were used or withdrawn (so an ACCEPT of one is
 * told so). Not thread-safe: the master's lock guards it.
 */
final class OfferBook {
  private static final int GONE_KEPT = 10_000;

  private final String masterId;
  private long next;
  private final Map<String, OutstandingOffer> outstanding = new LinkedHashMap<>();
  private final Set<String> gone = new HashSet<>();
  private final ArrayDeque<String> goneOrder = new ArrayDeque<>();

  /**
   * @param firstNumber where offer numbers start: a value past every number an earlier start of the
   *     agent used (the start time), so no offer ID is ever given twice
   */
  OfferBook(String masterId, long firstNumber) {
    this.masterId = masterId;
    this.next = firstNumber;
  }

  /** {@code <masterId>-O<n>}, Mesos's OfferID format. */
  String newId() {
    return masterId + "-O" + next++;
  }

  void add(OutstandingOffer offer) {
    outstanding.put(offer.id(), offer);
  }

  Optional<OutstandingOffer> get(String id) {
    return Optional.ofNullable(outstanding.get(id));
  }

  /** Removes an offer (used, declined, rescinded); later lookups say it is no longer valid. */
  Optional<OutstandingOffer> remove(String id) {
    OutstandingOffer o = outstanding.remove(id);
    if (o != null) {
      gone.add(id);
      goneOrder.addLast(id);
      while (goneOrder.size() > GONE_KEPT) {
        gone.remove(goneOrder.removeFirst());
      }
    }
    return Optional.ofNullable(o);
  }

  boolean wasUsed(String id) {
    return gone.contains(id);
  }

  int outstanding() {
    return outstanding.size();
  }

  List<OutstandingOffer> all() {
    return List.copyOf(outstanding.values());
  }

  List<OutstandingOffer> of(FrameworkID framework) {
    List<OutstandingOffer> found = new ArrayList<>();
    for (OutstandingOffer o : outstanding.values()) {
      if (o.framework().equals(framework)) {
        found.add(o);
      }
    }
    return found;
  }

  boolean hasOffer(FrameworkID framework) {
    return outstanding.values().stream().anyMatch(o -> o.framework().equals(framework));
  }

  /** What all outstanding offers hold. */
  Quantities offered() {
    Quantities sum = Quantities.NONE;
    for (OutstandingOffer o : outstanding.values()) {
      sum = sum.plus(o.amounts());
    }
    return sum;
  }

  Set<String> offeredDevices() {
    Set<String> ids = new HashSet<>();
    outstanding.values().forEach(o -> ids.addAll(o.allDevices()));
    return ids;
  }
}
