package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The settings containment is built from.
 *
 * @param isolation {@code --mesos-isolation}, see {@link MesosIsolation#parse}
 * @param switchUser {@code --mesos-switch-user}: run tasks as {@code CommandInfo.user}, else {@code
 *     FrameworkInfo.user}
 * @param allowRootTasks {@code --mesos-allow-root-tasks}: whether a task may run as uid 0
 * @param cgroupRoot {@code --cgroup-root}
 * @param devRoot {@code --dev-root}, where the accelerator device nodes are
 * @param setpriv util-linux's setpriv, which the launch prefix execs to switch user
 * @param parent the cgroup path under each hierarchy that the agent owns, relative, e.g. {@code
 *     acceld/mesos}; every container's cgroup is a child of it
 */
public record ContainmentSettings(
    Set<MesosIsolation> isolation,
    boolean switchUser,
    boolean allowRootTasks,
    Path cgroupRoot,
    Path devRoot,
    Path setpriv,
    String parent) {
  public static final String DEFAULT_PARENT = "acceld/mesos";
  public static final Path DEFAULT_SETPRIV = Path.of("/usr/bin/setpriv");

  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

  public ContainmentSettings {
    isolation = Set.copyOf(isolation);
    for (String segment : parent.split("/", -1)) {
      if (!SEGMENT.matcher(segment).matches()) {
        throw new IllegalArgumentException(
            "cgroup parent '"
                + parent
                + "' must be a relative path of plain names, like "
                + DEFAULT_PARENT);
      }
    }
    if (!setpriv.isAbsolute()) {
      throw new IllegalArgumentException("setpriv must be an absolute path, got " + setpriv);
    }
  }

  /**
   * The defaults: {@code devices,memory,cpu}, switch user, no root tasks, {@code /sys/fs/cgroup}.
   */
  public static ContainmentSettings defaults() {
    return new ContainmentSettings(
        MesosIsolation.parse(MesosIsolation.DEFAULT),
        true,
        false,
        Path.of("/sys/fs/cgroup"),
        Path.of("/dev"),
        DEFAULT_SETPRIV,
        DEFAULT_PARENT);
  }
}
