/**
 * The agent's containers: the executor side of the Mesos bridge.
 *
 * <p>{@link io.acceld.mesos.executor.Containers} is both the {@link
 * io.acceld.mesos.tasks.TaskLauncher} the master launches through and the {@link
 * io.acceld.mesos.http.ExecutorEndpoint} custom executors subscribe to. Underneath:
 *
 * <ul>
 *   <li>{@link io.acceld.mesos.executor.CommandTaskRunner}: a command task under the built-in
 *       command executor, one container per task.
 *   <li>{@link io.acceld.mesos.executor.ExecutorProcess}: a custom executor's life and
 *       subscription; {@link io.acceld.mesos.executor.ExecutorTasks}: its tasks, queued, delivered
 *       and reported on; {@link io.acceld.mesos.executor.ExecutorSessions}: the executor API's
 *       calls.
 *   <li>{@link io.acceld.mesos.executor.CommandLine}, {@link io.acceld.mesos.executor.Spawner},
 *       {@link io.acceld.mesos.executor.ProcessTree}: every container's process runs under {@code
 *       setsid sh -c WRAPPER}, leader of its own process group, which records its exit status in
 *       the {@link io.acceld.mesos.executor.Sandbox}; kills go to the group and its descendants.
 *   <li>{@link io.acceld.mesos.executor.ProcessStarter}, {@link
 *       io.acceld.mesos.executor.ProcessWatch}, {@link io.acceld.mesos.executor.ProcessKiller}: the
 *       only places a container's process is started (held at its gate until recorded), its exit
 *       observed and read, and its processes killed. Both kinds of container go through them, so
 *       whatever fences a task (a cgroup, a user) belongs in these three and nowhere else.
 *   <li>{@link io.acceld.mesos.executor.ExecutorEnvironment}: the environment, with the task's GPUs
 *       last.
 *   <li>{@link io.acceld.mesos.executor.ContainerRecords}: one checkpoint file per container,
 *       written before TASK_RUNNING, read by {@link io.acceld.mesos.executor.Containers#recover()}.
 * </ul>
 *
 * <p>Every container is fenced ({@link io.acceld.mesos.executor.ContainerFences}, over {@link
 * io.acceld.mesos.containment.Containment}): its own cgroup with its accelerators' device nodes
 * only, its {@code mem} and {@code cpus} as limits, and its user. The fence is made before the
 * spawn; its launch prefix runs inside the wrapper, which itself stays the agent's (root, outside
 * the limits, so it always records the exit status, in the agent's own {@code exits/}, never in the
 * sandbox the task owns). Kills and ends go to the whole cgroup, then remove it.
 */
package io.acceld.mesos.executor;
