/**
 * Kubernetes Dynamic Resource Allocation: the third publisher, beside {@code kubelet/} and {@code
 * mesos/}, importing neither and imported by neither.
 *
 * <h2>Parts, and what each gives the next</h2>
 *
 * <ul>
 *   <li>{@link io.acceld.dra.DeviceNames}: the one mapping between inventory devices and DRA device
 *       names (DNS labels, stable across restarts). Slices publish these names; the scheduler
 *       writes them into claims; prepare maps them back. Nothing else names a DRA device.
 *   <li>The API-server side: publishes the node's free, healthy devices as {@code
 *       resource.k8s.io/v1} ResourceSlices, and reads ResourceClaims for prepare through {@link
 *       io.acceld.dra.ClaimSource}.
 *   <li>The kubelet side ({@link io.acceld.dra.DraKubeletSide}, started as one): registers through
 *       plugin-watcher and serves the DRA gRPC API (v1, v1beta1) and the health stream on a Unix
 *       socket. Prepare leases through {@link io.acceld.ledger.DeviceLedger} with a {@link
 *       io.acceld.ledger.Holder.DraClaim} (and waits for the lease to be persisted) before it
 *       answers, and builds each claim's CDI spec through {@link
 *       io.acceld.allocation.RuntimeSpecs}.
 * </ul>
 */
package io.acceld.dra;
