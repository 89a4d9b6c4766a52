package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.CommandInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The argv of a {@link CommandInfo}, and the wrapper every container's process runs under.
 *
 * <p>{@code shell=true} (the proto's default) is the client's own request for a shell: {@code
 * /bin/sh -c <value>}. Otherwise {@code value} is the executable and {@code arguments} its argv
 * with {@code arguments[0]} the program's name, as Mesos runs it; since the wrapper execs through
 * {@code "$@"}, the program sees {@code value} as its {@code argv[0]} instead. Nothing a client
 * sent is ever put into a shell script's text: it reaches the wrapper as positional parameters.
 *
 * <p>The wrapper is {@code setsid sh -c SCRIPT STATUSFILE ARGV...}:
 *
 * <ul>
 *   <li>it first waits for the agent's {@code go} on stdin, and runs nothing without it: the agent
 *       writes it only once the container's record (with this pid) is durable, so an agent killed
 *       between the start and the record leaves no task running that a restarted agent would not
 *       know, and whose devices it would lease again. The agent's end of the pipe closes when it
 *       dies, and the wrapper then exits 111 with no status file. After the {@code go}, stdin is
 *       {@code /dev/null}.
 *   <li>{@code setsid} makes the wrapper the leader of a new session and process group whose ID is
 *       its pid (it does not fork: a child of the JVM is never a group leader), so the task's whole
 *       tree can be signalled as one, children re-parented to init included, and the task does not
 *       die with the agent's session.
 *   <li>the script runs the command, writes its exit status to STATUSFILE and exits with it, so an
 *       exit is known after an agent restart, when the agent is no longer the parent.
 *   <li>it catches SIGTERM with a no-op trap: the command (whose caught signals are reset by exec)
 *       gets the signal and decides, and the wrapper stays to record how it ended.
 * </ul>
 */
final class CommandLine {
  static final String WRAPPER_SCRIPT =
      "IFS= read -r go || exit 111; [ \"$go\" = go ] || exit 111; exec </dev/null;"
          + " trap : TERM; \"$@\"; s=$?; printf '%s\\n' \"$s\" > \"$0\"; exit \"$s\"";

  /** What the agent writes to the wrapper's stdin to let the command run. */
  static final String GO = "go\n";

  private final String setsid;
  private final String shell;

  /**
   * @param setsid the {@code setsid} program (util-linux)
   * @param shell a POSIX shell, for the wrapper and for {@code shell=true} commands
   */
  CommandLine(String setsid, String shell) {
    this.setsid = setsid;
    this.shell = shell;
  }

  /** The command's own argv; throws {@link IllegalArgumentException} naming what is missing. */
  List<String> argv(CommandInfo command) {
    if (!command.hasValue() || command.getValue().isEmpty()) {
      throw new IllegalArgumentException("the command has no 'value'");
    }
    if (command.getShell()) {
      return List.of(shell, "-c", command.getValue());
    }
    List<String> argv = new ArrayList<>();
    argv.add(command.getValue());
    // arguments[0] is the program's name in Mesos's convention; the rest are its arguments.
    List<String> arguments = command.getArgumentsList();
    argv.addAll(arguments.isEmpty() ? List.of() : arguments.subList(1, arguments.size()));
    return argv;
  }

  /** {@code argv} under the wrapper that records its exit status in {@code statusFile}. */
  List<String> wrapped(List<String> argv, Path statusFile) {
    List<String> command = new ArrayList<>();
    command.add(setsid);
    command.add(shell);
    command.add("-c");
    command.add(WRAPPER_SCRIPT);
    command.add(statusFile.toString());
    command.addAll(argv);
    return command;
  }
}
