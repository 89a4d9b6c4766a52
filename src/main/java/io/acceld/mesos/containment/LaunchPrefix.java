package io.acceld.mesos.containment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The argv a task's command is appended to: a fixed {@code /bin/sh -c} script that moves itself
 * into the container's cgroups (by writing {@code $$} to each {@code cgroup.procs}: the shell's pid
 * is the task's, since it then execs), then execs the rest, which is {@code setpriv} dropping to
 * the task's user when one is given, then the command.
 *
 * <p>Nothing from the task is ever part of the script's text: the cgroup files, setpriv's options
 * and the command are positional arguments, so no quoting can go wrong. Joining before the exec
 * means the command's first instruction already runs fenced, and every process it forks is born in
 * the cgroups.
 */
final class LaunchPrefix {
  /** {@code $0} of the script, as {@code ps} shows it until the exec. */
  static final String NAME = "acceld-fence";

  /**
   * Arguments up to {@code --} are cgroup.procs files; what follows is exec'ed. Exit 125 when a
   * cgroup cannot be joined (the task must not run unfenced), 127 when no command follows.
   */
  static final String SCRIPT =
      """
      for f do
        shift
        [ "$f" = -- ] && break
        printf '%s\\n' "$$" > "$f" || { echo "acceld-fence: cannot join cgroup $f" >&2; exit 125; }
      done
      [ $# -gt 0 ] || { echo 'acceld-fence: no command' >&2; exit 127; }
      exec "$@"
      """;

  private LaunchPrefix() {}

  static List<String> of(List<Path> procsFiles, Optional<UserIdentity> user, Path setpriv) {
    List<String> argv = new ArrayList<>();
    if (!procsFiles.isEmpty()) {
      argv.addAll(List.of("/bin/sh", "-c", SCRIPT, NAME));
      procsFiles.forEach(f -> argv.add(f.toString()));
      argv.add("--");
    }
    user.ifPresent(u -> argv.addAll(setpriv(u, setpriv)));
    return List.copyOf(argv);
  }

  /**
   * setpriv (util-linux) sets the real and effective ids and the supplementary groups with
   * setresuid/setresgid/setgroups, then execs: going from uid 0 to another uid clears the
   * permitted, effective and ambient capabilities (capabilities(7)).
   */
  static List<String> setpriv(UserIdentity user, Path setpriv) {
    String groups =
        user.groups().isEmpty()
            ? "--clear-groups"
            : "--groups="
                + user.groups().stream().map(String::valueOf).collect(Collectors.joining(","));
    return List.of(
        setpriv.toString(), "--reuid=" + user.uid(), "--regid=" + user.gid(), groups, "--");
  }
}
