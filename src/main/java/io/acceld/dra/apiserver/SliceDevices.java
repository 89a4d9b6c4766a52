package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.dra.DeviceNames;
import io.acceld.inventory.Device;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Lease;
import io.acceld.ledger.Publisher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The {@code devices[]} entries of the node's ResourceSlices: which devices, and what each says.
 *
 * <p>A device is published when it is present, Healthy, and not held by the device plugin or Mesos
 * (nor its GPU or MIG devices); a device a DRA claim holds stays published, since the scheduler
 * allocated it from the slice and knows it is taken.
 *
 * <p>Attributes, named as NVIDIA's DRA driver names them where it has them, so that its DeviceClass
 * selectors read ours: {@code type} ({@code gpu}, {@code mig}, or {@code accelerator} for other
 * vendors' devices that are not GPUs), {@code resource} (the device plugin's resource name), {@code
 * vendor}, {@code productName}, {@code uuid}, {@code driverVersion} and {@code
 * cudaComputeCapability} (versions), {@code numaNode}, {@code resource.kubernetes.io/pciBusID}; for
 * MIG {@code profile} (NVIDIA's name) and {@code migProfile}, {@code parentUUID}; capacity {@code
 * memory} in bytes. Strings are at most 64 characters: a longer {@code productName} is cut (it is
 * for people); any other longer string is left out (a cut UUID or profile would match wrongly).
 */
public final class SliceDevices {
  /** The API's limit on a string attribute. */
  static final int MAX_STRING = 64;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private SliceDevices() {}

  /** The entries to publish now, in inventory order. */
  public static List<ObjectNode> publishable(Availability availability) {
    NodeInfo node = availability.inventory().node();
    List<ObjectNode> devices = new ArrayList<>();
    for (Map.Entry<String, Device> e : DeviceNames.of(availability.inventory()).all().entrySet()) {
      Device d = e.getValue();
      if (d.isHealthy() && !heldOutsideDra(availability, d)) {
        devices.add(device(e.getKey(), d, node));
      }
    }
    return devices;
  }

  private static boolean heldOutsideDra(Availability availability, Device d) {
    for (Lease l : availability.conflicting(d)) {
      if (l.holder().publisher() != Publisher.DRA) {
        return true;
      }
    }
    return false;
  }

  /** One device's entry: its name, attributes and capacity. */
  public static ObjectNode device(String name, Device d, NodeInfo node) {
    ObjectNode attributes = NODES.objectNode();
    Optional<NvidiaDetails> nvidia = d.nvidia();
    Optional<MigDetails> mig = nvidia.flatMap(NvidiaDetails::mig);
    string(attributes, "type", mig.isPresent() ? "mig" : type(d));
    string(attributes, "resource", d.resource());
    string(attributes, "vendor", vendor(d.vendorId()));
    String product =
        d.amd().flatMap(a -> a.productName()).filter(p -> !p.isBlank()).orElse(d.model());
    if (!product.isBlank()) {
      string(
          attributes,
          "productName",
          product.length() > MAX_STRING ? product.substring(0, MAX_STRING) : product);
    }
    nvidia.ifPresent(n -> string(attributes, "uuid", n.uuid()));
    if (d.vendorId() == 0x10de) {
      node.nvidiaDriverVersion()
          .flatMap(Semver::of)
          .ifPresent(v -> version(attributes, "driverVersion", v));
    } else {
      d.amd()
          .flatMap(a -> a.driverVersion())
          .flatMap(Semver::of)
          .ifPresent(v -> version(attributes, "driverVersion", v));
    }
    nvidia
        .flatMap(NvidiaDetails::computeCapability)
        .flatMap(Semver::of)
        .ifPresent(v -> version(attributes, "cudaComputeCapability", v));
    if (d.numaNode() >= 0) {
      attributes.putObject("numaNode").put("int", d.numaNode());
    }
    string(attributes, "resource.kubernetes.io/pciBusID", d.pciAddress());
    mig.ifPresent(
        m -> {
          string(attributes, "profile", m.profile());
          string(attributes, "migProfile", m.profile());
          string(attributes, "parentUUID", m.parentUuid());
        });
    ObjectNode device = NODES.objectNode();
    device.put("name", name);
    device.set("attributes", attributes);
    long memory =
        nvidia
            .map(NvidiaDetails::memoryBytes)
            .orElseGet(() -> d.amd().flatMap(a -> boxed(a.vramBytes())).orElse(0L));
    if (memory > 0) {
      device.putObject("capacity").putObject("memory").put("value", Quantities.bytes(memory));
    }
    return device;
  }

  private static Optional<Long> boxed(OptionalLong value) {
    return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
  }

  private static String type(Device d) {
    return switch (d.vendorId()) {
      case 0x10de, 0x1002, 0x8086 -> "gpu";
      default -> "accelerator";
    };
  }

  /** The vendor's word: {@code nvidia}, {@code amd}, {@code intel}, else {@code pci-<id>}. */
  static String vendor(int vendorId) {
    return switch (vendorId) {
      case 0x10de -> "nvidia";
      case 0x1002 -> "amd";
      case 0x8086 -> "intel";
      default -> String.format(Locale.ROOT, "pci-%04x", vendorId);
    };
  }

  private static void string(ObjectNode attributes, String key, String value) {
    if (value.length() <= MAX_STRING) {
      attributes.putObject(key).put("string", value);
    }
  }

  private static void version(ObjectNode attributes, String key, String value) {
    attributes.putObject(key).put("version", value);
  }
}
