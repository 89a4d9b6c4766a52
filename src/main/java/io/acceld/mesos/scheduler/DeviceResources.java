package io.acceld.mesos.scheduler;

import io.acceld.discovery.DeviceClassifier;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.ledger.Availability;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which Mesos resource a device is offered as: NVIDIA GPUs as Mesos's first-class {@code gpus}
 * (what Marathon, Spark, tfmesos and mesos-execute look for), every other accelerator under its own
 * resource name ({@code amd.com/gpu}), which Mesos accounts and offers like any custom scalar. A
 * MIG device is not a GPU to a framework that asks for {@code gpus}: it is offered under its own
 * resource ({@code nvidia.com/mig-1g.10gb}), in whole numbers, so {@code gpus} counts whole GPUs.
 */
final class DeviceResources {
  static final String GPUS = "gpus";

  private DeviceResources() {}

  static String nameOf(Device d) {
    boolean wholeNvidiaGpu =
        d.vendorId() == DeviceClassifier.VENDOR_NVIDIA && Availability.parentOf(d).isEmpty();
    return wholeNvidiaGpu ? GPUS : d.resource();
  }

  /** The device IDs of {@code devices} by offered name, in the order given. */
  static Map<String, List<String>> byName(List<Device> devices) {
    Map<String, List<String>> by = new LinkedHashMap<>();
    for (Device d : devices) {
      by.computeIfAbsent(nameOf(d), n -> new ArrayList<>()).add(d.id());
    }
    return by;
  }

  /** Whether the node has an NVIDIA GPU at all, free or not: what the GPU_RESOURCES filter asks. */
  static boolean hasGpus(Inventory inventory) {
    return inventory.devices().stream().anyMatch(d -> nameOf(d).equals(GPUS));
  }
}
