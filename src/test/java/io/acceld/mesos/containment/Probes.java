package io.acceld.mesos.containment;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs real processes inside a fence and reads what happened to them. */
final class Probes {
  private Probes() {}

  record Result(int exit, String out, String err) {}

  static Process start(Fence fence, String... command) throws IOException {
    List<String> argv = new ArrayList<>(fence.launchPrefix());
    argv.addAll(List.of(command));
    return new ProcessBuilder(argv).start();
  }

  static Result run(Fence fence, String... command) throws IOException, InterruptedException {
    Process p = start(fence, command);
    p.getOutputStream().close();
    // outputs are small: read both before waiting (the process ends once it wrote them)
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("probe did not end: " + String.join(" ", command));
    }
    return new Result(p.exitValue(), out, err);
  }

  /**
   * Opens {@code node} for reading from inside the fence with the shell's redirection and returns
   * {@code opened} or the error text the shell printed (strerror of open's errno).
   */
  static String open(Fence fence, Path node) throws IOException, InterruptedException {
    Result r =
        run(fence, "/bin/sh", "-c", "exec 3<\"$1\" && echo opened", "probe", node.toString());
    if (r.exit() == 0 && r.out().strip().equals("opened")) {
      return "opened";
    }
    return r.err().strip();
  }

  /**
   * Waits until {@code process} is in every cgroup of {@code fence}: its launch has joined them.
   */
  static void awaitJoined(Fence fence, Process process) throws IOException {
    boolean joined =
        CgroupFiles.await(
            Duration.ofSeconds(10),
            () -> {
              for (String cgroup : fence.describe().cgroups()) {
                if (!CgroupFiles.pids(Path.of(cgroup, "cgroup.procs"))
                    .contains((int) process.pid())) {
                  return false;
                }
              }
              return true;
            });
    if (!joined) {
      fail("pid " + process.pid() + " did not join " + fence.describe().cgroups());
    }
  }

  /**
   * Starts, in {@code fence}, a process that ignores SIGTERM and whose parent has exited
   * (re-parented to init, as a double fork leaves it); returns its pid.
   */
  static long termDeafOrphan(Fence fence) throws IOException, InterruptedException {
    Result r =
        run(
            fence,
            "/bin/sh",
            "-c",
            "sh -c 'trap \"\" TERM; exec sleep 600' </dev/null >/dev/null 2>&1 & echo $!");
    return Long.parseLong(r.out().strip());
  }

  /** Whether {@code pid} has exited: gone, or a zombie waiting for its parent to reap it. */
  static boolean ended(long pid) throws IOException {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // the state follows the command name's closing parenthesis
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state == 'Z' || state == 'X';
    } catch (NoSuchFileException e) {
      return true;
    }
  }
}
