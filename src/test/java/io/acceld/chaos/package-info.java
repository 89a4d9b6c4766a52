/**
 * Issue 10's chaos suites: each injects one kind of fault many times, at random instants from a
 * printed seed ({@code -Dacceld.chaosSeed=N} replays a run), and asserts zero losses after every
 * round: no lease lost or doubled, nothing the kubelet or a framework was told that the ledger does
 * not hold. Each is bounded; times measured on 2 shared cores (load average 6-9):
 *
 * <ul>
 *   <li>{@link io.acceld.chaos.AgentKillNineChaosIT} (75-90 s): the shipped jar as a child process,
 *       {@code kill -9} 20 times during bursts of kubelet Allocates and Mesos ACCEPTs; after each
 *       restart every answered Allocate is held by the kubelet, every task the framework heard of
 *       holds its device or was reported terminal, no device is held by both sides, and everything
 *       comes free once the pods and tasks are gone, and no task reported terminal still runs with
 *       its GPU.
 *   <li>{@link io.acceld.chaos.XidStormChaosIT} (about 15 s): eight storms of 400 critical XIDs on
 *       every GPU at once; all Unhealthy to the kubelet and GPU offers rescinded within 3 s, back
 *       after the quarantine, calls and {@code /healthz} answered within 1 s, loop threads alive,
 *       log lines bounded.
 *   <li>{@link io.acceld.chaos.PciFlappingChaosIT} (about 4 s): GPUs unplugged and re-plugged
 *       (sysfs and NVML); ListAndWatch converges within 3 s, leases of flapping GPUs kept.
 *   <li>{@link io.acceld.chaos.PodResourcesChaosIT} (about 17 s): the pod-resources socket away and
 *       back while pods come and go; nothing it cannot confirm is freed, it reconciles on return.
 *   <li>{@link io.acceld.chaos.StateDiskFullChaosIT} (about 6 s, root only): a full {@code
 *       --state-dir} tmpfs during Allocates and launches; launches dropped at once with the reason,
 *       never acknowledged, serving goes on, all durable once space returns.
 *   <li>{@link io.acceld.chaos.BlockingSysfsChaosIT} (about 8 s): a {@code numa_node} that blocks
 *       (a FIFO) during run; {@code /healthz} names the stuck loop, the other GPUs are served, and
 *       it heals.
 * </ul>
 *
 * <p>Kubelet restarts are {@code io.acceld.kubelet.KubeletRestartChaosIT} (50 rounds, about 40 s).
 * The in-process suites run the daemon {@code acceld run} runs ({@link io.acceld.chaos.ChaosNode});
 * faults go through the real fixture tree, the NVML double and real sockets.
 */
package io.acceld.chaos;
