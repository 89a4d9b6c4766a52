package io.acceld.discovery;

import java.util.List;

/**
 * The device nodes found for one device, relative to the device root.
 *
 * @param present nodes that exist, in the order a container should get them
 * @param missing nodes the device needs that do not exist; a non-empty list makes it unhealthy
 */
public record DeviceNodes(List<String> present, List<String> missing) {
  public DeviceNodes {
    present = List.copyOf(present);
    missing = List.copyOf(missing);
  }
}
