package io.acceld.dra;

import java.util.List;
import java.util.Objects;

/**
 * The part of a {@code resource.k8s.io/v1} ResourceClaim that prepare needs.
 *
 * @param namespace {@code metadata.namespace}
 * @param name {@code metadata.name}
 * @param uid {@code metadata.uid}, which must match the UID the kubelet sent
 * @param allocated whether {@code status.allocation} is present
 * @param results {@code status.allocation.devices.results}, every driver's
 */
public record AllocatedClaim(
    String namespace, String name, String uid, boolean allocated, List<Result> results) {
  public AllocatedClaim {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uid, "uid");
    results = List.copyOf(results);
  }

  /**
   * One allocated device.
   *
   * @param request the request's name ({@code req}, or {@code req/sub} for a subrequest)
   * @param driver the driver that publishes the device
   * @param pool the pool it was published in
   * @param device the device's name in the pool
   */
  public record Result(String request, String driver, String pool, String device) {
    public Result {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(driver, "driver");
      Objects.requireNonNull(pool, "pool");
      Objects.requireNonNull(device, "device");
    }
  }
}
