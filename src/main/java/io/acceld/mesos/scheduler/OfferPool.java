package io.acceld.mesos.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the offers an ACCEPT used hold together: the pool its operations draw from.
 *
 * @param offers the offers, in the ACCEPT's order
 * @param amounts everything they offer by resource name, devices counted
 * @param devices the device IDs behind each device resource, in the offers' order
 */
record OfferPool(
    List<OutstandingOffer> offers, Quantities amounts, Map<String, List<String>> devices) {
  static OfferPool of(List<OutstandingOffer> used) {
    Quantities amounts = Quantities.NONE;
    Map<String, List<String>> devices = new LinkedHashMap<>();
    for (OutstandingOffer o : used) {
      amounts = amounts.plus(o.amounts());
      o.devices()
          .forEach((n, ids) -> devices.computeIfAbsent(n, k -> new ArrayList<>()).addAll(ids));
    }
    return new OfferPool(List.copyOf(used), amounts, Collections.unmodifiableMap(devices));
  }

  /** Why the ledger is asked for a lease: these offers' ACCEPT. */
  String why() {
    return "ACCEPT of " + offers.stream().map(OutstandingOffer::id).toList();
  }
}
