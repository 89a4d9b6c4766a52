package io.acceld.dra;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.MigDetails;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The DRA name of each device of an inventory: a DNS label, unique on the node, and the same after
 * a restart for the same hardware (a claim allocated before the restart names it). NVIDIA GPUs are
 * {@code gpu-<minor>} as NVIDIA's own DRA driver names them, so its claims and selectors read the
 * same; MIG devices {@code gpu-<parent minor>-mig-<GPU instance>-<compute instance>}; AMD GPUs
 * {@code amd-gpu-<render minor - 128>}; anything else by its vendor and PCI address. A name that
 * would collide (two GPUs with no known minor) falls back to the PCI address, which is unique.
 */
public final class DeviceNames {
  private static final Pattern NVIDIA_NODE = Pattern.compile("nvidia(\\d+)");
  private static final Pattern RENDER_NODE = Pattern.compile("dri/renderD(\\d+)");
  private static final int FIRST_RENDER_MINOR = 128;
  private static final int NVIDIA = 0x10de;
  private static final int AMD = 0x1002;
  private static final int INTEL = 0x8086;

  private final Map<String, Device> byName;
  private final Map<String, String> nameById;

  private DeviceNames(Map<String, Device> byName, Map<String, String> nameById) {
    this.byName = Collections.unmodifiableMap(byName);
    this.nameById = Collections.unmodifiableMap(nameById);
  }

  /** The names of every device of {@code inventory}, in the inventory's order. */
  public static DeviceNames of(Inventory inventory) {
    Map<String, Device> byName = new LinkedHashMap<>();
    Map<String, String> nameById = new LinkedHashMap<>();
    for (Device d : inventory.devices()) {
      String name = preferred(d);
      if (byName.containsKey(name)) {
        name = byPciAddress(d);
      }
      if (byName.containsKey(name)) {
        continue; // the same PCI address twice: the inventory never has it; publish one
      }
      byName.put(name, d);
      nameById.put(d.id(), name);
    }
    return new DeviceNames(byName, nameById);
  }

  /** The device published as {@code name}. */
  public Optional<Device> device(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The DRA name of the inventory device {@code deviceId}. */
  public Optional<String> nameOf(String deviceId) {
    return Optional.ofNullable(nameById.get(deviceId));
  }

  /** Every name, with its device, in the inventory's order. */
  public Map<String, Device> all() {
    return byName;
  }

  private static String preferred(Device d) {
    if (d.vendorId() == NVIDIA) {
      int minor = d.nvidia().map(n -> n.minor()).orElse(-1);
      if (minor < 0) {
        minor = nodeNumber(d, NVIDIA_NODE);
      }
      if (minor >= 0) {
        Optional<MigDetails> mig = d.nvidia().flatMap(n -> n.mig());
        if (mig.isPresent()) {
          return "gpu-"
              + minor
              + "-mig-"
              + mig.get().gpuInstanceId()
              + "-"
              + mig.get().computeInstanceId();
        }
        return "gpu-" + minor;
      }
    } else if (d.vendorId() == AMD) {
      int render = nodeNumber(d, RENDER_NODE);
      if (render >= FIRST_RENDER_MINOR) {
        return "amd-gpu-" + (render - FIRST_RENDER_MINOR);
      }
    }
    return byPciAddress(d);
  }

  /** {@code <vendor>-<domain>-<bus>-<device>-<function>}: unique, and a DNS label. */
  private static String byPciAddress(Device d) {
    String vendor =
        switch (d.vendorId()) {
          case NVIDIA -> "nvidia";
          case AMD -> "amd";
          case INTEL -> "intel";
          default -> String.format(Locale.ROOT, "pci%04x", d.vendorId());
        };
    String address = d.pciAddress().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    String name = (vendor + "-" + address).replaceAll("-+$", "");
    if (d.nvidia().flatMap(n -> n.mig()).isPresent()) {
      MigDetails mig = d.nvidia().get().mig().get();
      name += "-mig-" + mig.gpuInstanceId() + "-" + mig.computeInstanceId();
    }
    return name.length() <= 63 ? name : name.substring(0, 63).replaceAll("-+$", "");
  }

  private static int nodeNumber(Device d, Pattern pattern) {
    for (String node : d.deviceNodes()) {
      Matcher m = pattern.matcher(node);
      if (m.matches() && m.group(1).length() <= 6) {
        return Integer.parseInt(m.group(1));
      }
    }
    return -1;
  }
}
