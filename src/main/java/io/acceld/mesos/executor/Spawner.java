package io.acceld.mesos.executor;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Starts a container's process: the command under the wrapper ({@link CommandLine}), in its
 * sandbox, with exactly the given environment, output appended to the sandbox's files, and no
 * stdin. Nothing connects the process to the agent once started (no pipes), so it outlives an agent
 * that is killed, and is re-attached when the agent comes back.
 */
final class Spawner {
  private final CommandLine commandLine;
  private final Signals signals;

  Spawner(CommandLine commandLine, Signals signals) {
    this.commandLine = commandLine;
    this.signals = signals;
  }

  ProcessTree spawn(List<String> argv, Map<String, String> env, Sandbox sandbox)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(commandLine.wrapped(argv, sandbox.exitStatusFile()));
    builder.directory(sandbox.dir().toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(sandbox.stdout().toFile()));
    builder.redirectError(ProcessBuilder.Redirect.appendTo(sandbox.stderr().toFile()));
    Process process = builder.start();
    process.getOutputStream().close(); // stdin at end of file from the start
    return ProcessTree.started(process, signals);
  }
}
