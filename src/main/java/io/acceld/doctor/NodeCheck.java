package io.acceld.doctor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One device node judged: present, a character device, the device number its driver gives it, and
 * readable and writable by its owner. {@code fix} is empty when nothing is wrong.
 *
 * @param path the node as the agent reads it (under {@code --dev-root})
 * @param text what was found, such as {@code /dev/nvidia0 195:0 crw-rw-rw-}
 * @param fix what to do, when something is wrong
 */
record NodeCheck(Path path, String text, Optional<String> fix) {
  boolean ok() {
    return fix.isEmpty();
  }

  static NodeCheck of(Path devRoot, String relative, DeviceNumbers numbers) {
    Path path = devRoot.resolve(relative);
    Optional<NodeFile> stat;
    try {
      stat = NodeFile.stat(path);
    } catch (IOException e) {
      return bad(path, path + " cannot be read: " + e.getMessage(), recreate(relative));
    }
    if (stat.isEmpty()) {
      return bad(path, path + " is missing", recreate(relative));
    }
    NodeFile node = stat.get();
    if (node.type() != NodeFile.Type.CHARACTER_DEVICE) {
      return bad(
          path,
          path + " is " + node.type() + ", not a character device",
          "remove it (a stale or hand-made file) and " + recreate(relative));
    }
    String shown = path + " " + node.major() + ":" + node.minor() + " " + node.modeString();
    Optional<DeviceNumbers.Expected> expected = numbers.expected(relative);
    if (expected.isPresent()) {
      OptionalInt major = numbers.major(expected.get().drivers());
      String driver = expected.get().drivers().get(0);
      if (major.isEmpty()) {
        return bad(
            path,
            shown
                + ", but no '"
                + driver
                + "' character device is registered in "
                + numbers.file()
                + " (its driver is not loaded)",
            "load the driver that serves it (" + loadHint(relative) + ")");
      }
      OptionalInt minor = expected.get().minor();
      boolean wrong =
          node.major() != major.getAsInt()
              || (minor.isPresent() && node.minor() != minor.getAsInt());
      if (wrong) {
        return bad(
            path,
            path
                + " is "
                + node.major()
                + ":"
                + node.minor()
                + ", expected "
                + major.getAsInt()
                + ":"
                + (minor.isPresent() ? String.valueOf(minor.getAsInt()) : "*")
                + " ('"
                + driver
                + "' in "
                + numbers.file()
                + ")",
            "remove the node (it is stale or was made by hand with the wrong number) and "
                + recreate(relative));
      }
    }
    if (!node.ownerCanReadAndWrite()) {
      return bad(
          path,
          shown + ": its owner cannot read and write it",
          "chmod u+rw "
              + path
              + " (NVIDIA's driver makes its nodes 0666; udev rules set the others)");
    }
    return new NodeCheck(path, shown, Optional.empty());
  }

  private static NodeCheck bad(Path path, String text, String fix) {
    return new NodeCheck(path, text, Optional.of(fix));
  }

  /** How the node comes back, by the driver that makes it. */
  static String recreate(String relative) {
    if (relative.startsWith("nvidia-caps/")) {
      return "let the driver recreate it: nvidia-modprobe -f with its capability file under"
          + " /proc/driver/nvidia/capabilities (nvidia-smi mig -lgi, run as root, makes them"
          + " all); in a container, mount the host's /dev at --dev-root";
    }
    if (relative.startsWith("nvidia-uvm")) {
      return "let the driver recreate it: nvidia-modprobe -u -c=0 as root; in a container, mount"
          + " the host's /dev at --dev-root";
    }
    if (relative.startsWith("nvidia")) {
      String minor = relative.replaceAll("[^0-9]", "");
      return "let the driver recreate it: nvidia-modprobe"
          + (relative.matches("nvidia[0-9]+") ? " -c " + minor : "")
          + (relative.equals("nvidia-modeset") ? " -m" : "")
          + " (or nvidia-smi, run once as root); in a container, mount the host's /dev at"
          + " --dev-root";
    }
    if (relative.startsWith("vfio/")) {
      return "bind the device to vfio-pci (modprobe vfio-pci, then driverctl or the"
          + " driver_override file) so the kernel creates it";
    }
    return "let udev recreate it: udevadm trigger --subsystem-match=drm"
        + " --subsystem-match=accel --action=add (or reload the device's driver); in a"
        + " container, mount the host's /dev at --dev-root";
  }

  private static String loadHint(String relative) {
    if (relative.startsWith("nvidia-uvm")) {
      return "modprobe nvidia-uvm";
    }
    if (relative.startsWith("nvidia")) {
      return "modprobe nvidia; is the driver built for the running kernel? dkms status";
    }
    if (relative.equals("kfd") || relative.startsWith("dri/")) {
      return "modprobe amdgpu, i915 or xe, as the device needs";
    }
    if (relative.startsWith("vfio/")) {
      return "modprobe vfio-pci";
    }
    return "modprobe the device's driver";
  }
}
