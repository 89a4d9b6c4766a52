package io.acceld.mesos.executor;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Starts a container's process: the command under the wrapper ({@link CommandLine}), in its
 * sandbox, with exactly the given environment and output appended to the sandbox's files. The
 * wrapper holds the command until {@link Spawned#go()}, which the caller sends once the container
 * is recorded; after that nothing connects the process to the agent (its stdin is {@code
 * /dev/null}), so it outlives an agent that is killed, and is re-attached when the agent comes
 * back.
 */
final class Spawner {
  private final CommandLine commandLine;
  private final Signals signals;

  Spawner(CommandLine commandLine, Signals signals) {
    this.commandLine = commandLine;
    this.signals = signals;
  }

  /**
   * A started wrapper, waiting for its {@code go}.
   *
   * @param tree the wrapper's process tree (its pid is the one to record)
   */
  record Spawned(ProcessTree tree, OutputStream gate) {
    /** Lets the command run: call only once the container's record holding this pid is durable. */
    void go() throws IOException {
      try (OutputStream out = gate) {
        out.write(CommandLine.GO.getBytes(StandardCharsets.US_ASCII));
      }
    }

    /** Stops the wrapper before it ran anything: it exits when its stdin closes without a go. */
    void abandon() {
      try {
        gate.close();
      } catch (IOException e) {
        // the wrapper is gone already
      }
      tree.kill();
    }
  }

  Spawned spawn(List<String> argv, Map<String, String> env, Sandbox sandbox) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(commandLine.wrapped(argv, sandbox.exitStatusFile()));
    builder.directory(sandbox.dir().toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(sandbox.stdout().toFile()));
    builder.redirectError(ProcessBuilder.Redirect.appendTo(sandbox.stderr().toFile()));
    Process process = builder.start();
    return new Spawned(ProcessTree.started(process, signals), process.getOutputStream());
  }
}
