package io.acceld.mesos.executor;

import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Sandboxes;
import io.acceld.mesos.containment.UserIdentity;
import io.acceld.proto.mesos.v1.CommandInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one place a container's process is started, for command tasks and custom executors alike: its
 * sandbox, its argv, its environment, and its wrapper spawned and held at the gate.
 *
 * <p>The start is two steps on purpose. {@link #start} leaves the wrapper waiting for its {@code
 * go} (see {@link CommandLine}): the process exists, has its pid and process group, and has run
 * nothing of the task. The caller records the container, then {@link Started#release()}s it. That
 * window is where anything that must hold for the task's whole life and before its first
 * instruction belongs.
 *
 * <p>The container's {@link Fence} is made before the spawn, and its launch prefix goes INSIDE the
 * wrapper, right before the command's argv: the wrapper stays the agent's (root, outside the
 * limits, so it always lives to record the exit status), while the command joins the cgroups and
 * drops to its user before its first instruction, and every process it forks is born fenced.
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
  record Started(Spawner.Spawned spawned, Sandbox sandbox, Fence fence) {
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
   * @param fence the container's, already made: the sandbox is given to its user and the command
   *     runs under its launch prefix
   * @throws IllegalArgumentException when {@code command} cannot be run (no value), naming why
   * @throws IOException when the sandbox cannot be created or the process not spawned
   */
  Started start(
      String containerId,
      CommandInfo command,
      Function<Sandbox, Map<String, String>> environment,
      Fence fence)
      throws IOException {
    Sandbox box = Sandbox.create(sandboxes, containerId);
    Optional<UserIdentity> user = fence.describe().user();
    if (user.isPresent()) {
      Sandboxes.chownTo(box.dir(), user.get());
    }
    List<String> argv = new ArrayList<>(fence.launchPrefix());
    argv.addAll(commandLine.argv(command));
    Map<String, String> env = asUser(environment.apply(box), user, box);
    return new Started(spawner.spawn(argv, env, box), box, fence);
  }

  /**
   * setpriv changes ids only, so the variables naming the user are set here: {@code USER} and
   * {@code LOGNAME} to the task's user, {@code HOME} to its sandbox (the one directory it is sure
   * to own; the agent's own HOME would be root's).
   */
  static Map<String, String> asUser(
      Map<String, String> env, Optional<UserIdentity> user, Sandbox box) {
    if (user.isEmpty()) {
      return env;
    }
    Map<String, String> withUser = new LinkedHashMap<>(env);
    withUser.put("USER", user.get().name());
    withUser.put("LOGNAME", user.get().name());
    withUser.put("HOME", box.dir().toString());
    return withUser;
  }
}
