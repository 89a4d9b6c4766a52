package io.acceld.dra;

import java.util.List;
import java.util.Objects;

/**
 * One device of a prepared claim, as the kubelet gets it (the same in v1 and v1beta1).
 *
 * @param requestNames the claim's requests the device was allocated for (subrequest suffixes
 *     stripped, {@code req/sub} reads {@code req}, as the Go helper does)
 * @param pool the pool the device is in, this node's
 * @param device the device's DRA name ({@link DeviceNames})
 * @param cdiDeviceIds the fully qualified CDI IDs the runtime injects
 */
public record PreparedDevice(
    List<String> requestNames, String pool, String device, List<String> cdiDeviceIds) {
  public PreparedDevice {
    requestNames = List.copyOf(requestNames);
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
  }
}
