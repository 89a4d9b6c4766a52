/**
 * acceld: one node agent, one pipeline, several publishers. This file is the contract each stage
 * gives the next; the package tree follows it.
 *
 * <h2>The pipeline ({@link io.acceld.agent.Agent})</h2>
 *
 * <ol>
 *   <li><b>Discovery</b> ({@code discovery/}, NVML through {@code nvml/}) produces an immutable
 *       {@link io.acceld.inventory.Inventory}: every device that is present, with the problems
 *       discovery itself can see (a missing device node, a GPU NVML calls lost). It runs on an
 *       interval and when {@code health.PresenceMonitor} sees devices or nodes come and go. A
 *       device it cannot read affects that device only.
 *   <li><b>Health</b> ({@code health/}) follows discovery's raw snapshots and keeps {@link
 *       io.acceld.health.HealthMarks}: what went wrong since (XIDs, ECC, lost GPUs, retired pages),
 *       each as a structured {@link io.acceld.inventory.HealthProblem}. The agent publishes
 *       discovery plus marks to the {@link io.acceld.inventory.InventoryStore}, which hands its
 *       listeners each snapshot with the {@link io.acceld.inventory.InventoryDiff} from the last.
 *   <li><b>Ledger</b> ({@code ledger/}): {@link io.acceld.ledger.DeviceLedger} follows the store
 *       and is the sole owner of leases. It publishes {@link io.acceld.ledger.Availability}: the
 *       inventory and every lease, from which availability is derived (present, Healthy, not
 *       leased). Leases are atomic, never shared between sides, checkpointed under {@code
 *       --state-dir} and restored before anything serves.
 * </ol>
 *
 * <h2>Publishers ({@link io.acceld.agent.AgentDaemon} composes them)</h2>
 *
 * Each publisher reads {@link io.acceld.ledger.Availability}, leases through the ledger, chooses
 * devices with {@link io.acceld.allocation.DeviceChooser} and renders {@link
 * io.acceld.allocation.RuntimeSpec} for its workloads. Publishers never import each other.
 *
 * <ul>
 *   <li>{@code kubelet/}: device-plugin servers over Unix sockets ({@code transport/}); Allocate
 *       records pending leases; {@code kubelet/podresources} confirms and releases them from the
 *       kubelet's pod-resources API. A device another side holds is shown Unhealthy.
 *   <li>{@code metrics/}: Micrometer binders and Prometheus collectors that read the store, the
 *       ledger and {@code telemetry/} samples, plus the agent's HTTP endpoints.
 *   <li>{@code mesos/} (next): offers from availability, ACCEPT leases through the ledger.
 * </ul>
 */
package io.acceld;
