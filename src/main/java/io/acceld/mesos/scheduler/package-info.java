/**
 * The single-node Mesos master behind the v1 scheduler API: {@link
 * io.acceld.mesos.scheduler.MesosMaster}.
 *
 * <h2>How it is split</h2>
 *
 * <p>{@code MesosMaster} is a façade: it routes each call to the part that does its job. The parts
 * share one lock, which the master makes and hands to each (see its class comment).
 *
 * <ul>
 *   <li>{@code FrameworkRegistry}, over {@code FrameworkTable}, {@code Framework}, {@code
 *       Subscription}, {@code Heartbeats}: who is subscribed on which stream, SUBSCRIBED then an
 *       immediate HEARTBEAT then one per interval, failover, TEARDOWN, UPDATE_FRAMEWORK.
 *   <li>{@code OfferDesk}, over {@code OfferBook}, {@code OfferCandidate}, {@code OfferFactory},
 *       {@code DeviceResources}, {@code NodeAttributes}, {@code NodeResources}, {@code Reserve},
 *       {@code DeclineFilter}: what is offered, to whom, and when it is rescinded. Devices come
 *       from the ledger's {@link io.acceld.ledger.Availability} only (so a device a pod holds, or
 *       any replica of it, is never offered); NVIDIA GPUs as {@code gpus}, other accelerators under
 *       their resource names; CPUs, memory and disk from {@code /proc} minus {@code
 *       --mesos-reserve} and what live tasks use. One framework at a time gets everything free, as
 *       Mesos's allocator does with one agent.
 *   <li>{@code AcceptPath}: ACCEPT, step by step: the offers taken into an {@code OfferPool}, each
 *       operation validated ({@code AcceptValidator}), its devices chosen ({@code DeviceChoice})
 *       and leased ({@code OperationLease}), then {@code LaunchAfterLease}; tasks between lease and
 *       task book are {@code LaunchesInFlight}.
 *   <li>{@code TaskCalls}: KILL and RECONCILE.
 *   <li>{@code CallValidation}, {@code Roles}, {@code Reconciliation}, {@code MasterStatuses}:
 *       Mesos's rules and texts.
 *   <li>{@code MasterState}: {@code GET /state}.
 * </ul>
 *
 * <h2>The rules that keep one device with one workload</h2>
 *
 * <ul>
 *   <li>An ACCEPT leases every device of an operation in one atomic {@link
 *       io.acceld.ledger.DeviceLedger#lease(java.util.List)} call; a refusal (a pod got there
 *       first) drops the operation's tasks with the ledger's reason, and nothing launches.
 *   <li>The lease is persisted, then the tasks are recorded in the task book, then the executor
 *       side is told: after a crash at any point, a lease without a task is released by {@link
 *       io.acceld.mesos.tasks.TaskBook#afterRecovery}, and a task is never without its lease.
 *   <li>An offer whose device stops being available (health, unplug, a kubelet lease) is rescinded
 *       on the ledger's thread, well within 100 ms.
 * </ul>
 */
package io.acceld.mesos.scheduler;
