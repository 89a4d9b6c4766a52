/**
 * The contract between the scheduler side and the executor side ({@link
 * io.acceld.mesos.tasks.TaskLauncher}, {@link io.acceld.mesos.tasks.StatusSink}, {@link
 * io.acceld.mesos.tasks.Launch}), and the agent's task book ({@link
 * io.acceld.mesos.tasks.TaskBook}): every task's row and its reliable status-update stream,
 * checkpointed under the bridge's state directory in a snapshot plus a group-committed journal
 * ({@link io.acceld.mesos.tasks.TaskJournal}).
 */
package io.acceld.mesos.tasks;
