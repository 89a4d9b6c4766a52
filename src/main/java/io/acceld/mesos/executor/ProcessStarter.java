package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.CommandInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The one place a container's process is started, for command tasks and custom executors alike: its
 * sandbox, its argv, its environment, and its wrapper spawned and held at the gate.
 *
 * <p>The start is two steps on purpose. {@link #start} leaves the wrapper waiting for its {@code
 * go} (see {@link CommandLine}): the process exists, has its pid and process group, and has run
 * nothing of the task. The caller records the container, then {@link Started#release()}s it. That
 * window is where anything that must hold for the task's whole life and before its first
 * instruction belongs (moving the wrapper into a cgroup, which its children inherit; the argv that
 * switches user goes in {@link #start}, before the spawn).
 */
final class ProcessStarter {
  private final Path sandboxes;
  private final CommandLine commandLine;
  private final Spawner spawner;

  /**
   * @param sandboxes the directory sandboxes are created in
   */
  ProcessStarter(Path sandboxes, CommandLine commandLine, Spawner spawner) {
    this.sandboxes = sandboxes;
    this.commandLine = commandLine;
    this.spawner = spawner;
  }

  /**
   * A container's process, spawned and waiting at its gate.
   *
   * @param sandbox the container's sandbox, where its output and exit status go
   */
  record Started(Spawner.Spawned spawned, Sandbox sandbox) {
    ProcessTree tree() {
      return spawned.tree();
    }

    /** Lets the command run: only once the container's record with this pid is durable. */
    void release() throws IOException {
      spawned.go();
    }

    /** Stops the wrapper before it ran anything of the task (its record could not be written). */
    void abandon() {
      spawned.abandon();
    }
  }

  /**
   * Creates the container's sandbox and spawns {@code command} in it under the wrapper.
   *
   * @param environment the process's whole environment, which may name the sandbox
   * @throws IllegalArgumentException when {@code command} cannot be run (no value), naming why
   * @throws IOException when the sandbox cannot be created or the process not spawned
   */
  Started start(
      String containerId, CommandInfo command, Function<Sandbox, Map<String, String>> environment)
      throws IOException {
    Sandbox box = Sandbox.create(sandboxes, containerId);
    List<String> argv = commandLine.argv(command);
    Map<String, String> env = environment.apply(box);
    return new Started(spawner.spawn(argv, env, box), box);
  }
}
