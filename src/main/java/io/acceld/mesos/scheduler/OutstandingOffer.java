package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import java.util.List;
import java.util.Map;

/**
 * An offer sent and not yet accepted, declined or rescinded.
 *
 * @param amounts everything it offers by resource name, devices counted
 * @param devices the device IDs behind each device resource ({@code gpus}, {@code amd.com/gpu})
 */
record OutstandingOffer(
    Offer offer, String role, Quantities amounts, Map<String, List<String>> devices) {
  public OutstandingOffer {
    devices = Map.copyOf(devices);
  }

  String id() {
    return offer.getId().getValue();
  }

  FrameworkID framework() {
    return offer.getFrameworkId();
  }

  List<String> allDevices() {
    return devices.values().stream().flatMap(List::stream).toList();
  }
}
