package io.acceld.mesos.executor;

import java.util.Map;
import java.util.Optional;

/**
 * How a command ended, in the words of Mesos's command executor: {@code "Command exited with status
 * N"} or {@code "Command terminated with signal Terminated"}.
 *
 * <p>The wrapper records the shell's {@code $?}, which is 128+N for a command killed by signal N. A
 * status above 128 is therefore read as a signal; a program that itself exits with 130 is reported
 * as interrupted, which is what a shell would assume too.
 */
record ExitDescription(Optional<Integer> status) {
  private static final Map<Integer, String> SIGNAL_NAMES =
      Map.ofEntries(
          Map.entry(1, "Hangup"),
          Map.entry(2, "Interrupt"),
          Map.entry(3, "Quit"),
          Map.entry(4, "Illegal instruction"),
          Map.entry(6, "Aborted"),
          Map.entry(7, "Bus error"),
          Map.entry(8, "Floating point exception"),
          Map.entry(9, "Killed"),
          Map.entry(11, "Segmentation fault"),
          Map.entry(13, "Broken pipe"),
          Map.entry(14, "Alarm clock"),
          Map.entry(15, "Terminated"));

  boolean succeeded() {
    return status.isPresent() && status.get() == 0;
  }

  /**
   * @param leaderExit the wrapper's own exit value, when it is known (the agent's own child): it
   *     says which signal killed the wrapper when it had no chance to record a status
   */
  String message(Optional<Integer> leaderExit) {
    if (status.isPresent()) {
      int s = status.get();
      return s > 128 && s < 128 + 65 ? signalled(s - 128) : "Command exited with status " + s;
    }
    if (leaderExit.isPresent() && leaderExit.get() > 128) {
      return signalled(leaderExit.get() - 128);
    }
    return "Command terminated without recording an exit status (killed)";
  }

  private static String signalled(int signal) {
    return "Command terminated with signal " + SIGNAL_NAMES.getOrDefault(signal, "" + signal);
  }
}
