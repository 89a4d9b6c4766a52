/**
 * The Mesos bridge: this node as a single-agent Mesos master, over the Mesos v1 scheduler and
 * executor HTTP APIs, publishing the same devices as the kubelet side through the one ledger.
 *
 * <h2>Parts, and what each gives the next</h2>
 *
 * <ul>
 *   <li>{@code wire/}: Mesos's own JSON mapping (stout's: snake_case, enum names, base64 bytes,
 *       64-bit integers as numbers) and protobuf, media types, RecordIO. No state.
 *   <li>{@code http/}: the HTTP server (routes, authentication, the transport status codes in the
 *       reference's order, chunked event streams with one writer each). It decodes calls and hands
 *       them to a {@link io.acceld.mesos.http.SchedulerEndpoint} or {@link
 *       io.acceld.mesos.http.ExecutorEndpoint}, which answer a {@link io.acceld.mesos.http.Reply}.
 *   <li>{@code scheduler/}: the master. Frameworks and their subscriptions, offers built from
 *       {@link io.acceld.ledger.Availability} and rescinded when it changes, ACCEPT leasing through
 *       {@link io.acceld.ledger.DeviceLedger} (and waiting for the lease to be persisted) with
 *       devices chosen by {@link io.acceld.allocation.DeviceChooser}; then {@link
 *       io.acceld.mesos.tasks.TaskLauncher#launch}.
 *   <li>{@code tasks/}: the contract between the two sides, and the task book: every task's state,
 *       its devices, and its reliable status-update stream (checkpointed, FIFO, the head retried
 *       until acknowledged). A terminal status releases the task's lease.
 *   <li>{@code executor/}: the agent's containers. Command tasks under the built-in command
 *       executor, custom executors with the Mesos executor environment, the executor endpoint, kill
 *       policies, and re-attaching to surviving processes after a restart. Every status goes to the
 *       {@link io.acceld.mesos.tasks.StatusSink}.
 * </ul>
 *
 * <p>The bridge imports {@code ledger/}, {@code allocation/} and {@code inventory/}, never {@code
 * kubelet/}.
 */
package io.acceld.mesos;
