package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefix's script, run by a real shell against plain files standing in for {@code
 * cgroup.procs}: it writes the pid that then becomes the command's, and no argument is ever
 * evaluated as shell code.
 */
class LaunchPrefixTest {
  @TempDir Path temp;

  private static Probes.Result run(List<String> argv) throws Exception {
    Process p = new ProcessBuilder(argv).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Probes.Result(p.waitFor(), out, err);
  }

  @Test
  void writesItsPidToEveryFileThenExecsTheCommandUnderThatPid() throws Exception {
    // names a careless script would run: a command substitution and a quote
    Path a = temp.resolve("a $(touch pwned) 'q");
    Path b = temp.resolve("b;touch pwned2");
    Files.writeString(a, "");
    Files.writeString(b, "");
    List<String> argv =
        new ArrayList<>(LaunchPrefix.of(List.of(a, b), Optional.empty(), Path.of("/unused")));
    argv.addAll(
        List.of("/bin/sh", "-c", "echo $$; printf '%s|' \"$@\"", "cmd", "$(id)", "--", "x y"));

    Probes.Result r = run(argv);

    assertThat(r.exit()).as(r.err()).isZero();
    String[] out = r.out().split("\n");
    assertThat(Files.readString(a).strip()).isEqualTo(out[0]);
    assertThat(Files.readString(b).strip()).isEqualTo(out[0]);
    assertThat(out[1]).isEqualTo("$(id)|--|x y|");
    assertThat(temp.resolve("pwned")).doesNotExist();
    assertThat(temp.resolve("pwned2")).doesNotExist();
  }

  @Test
  void aCgroupThatCannotBeJoinedStopsTheLaunch() throws Exception {
    Path missing = temp.resolve("no-such-dir/cgroup.procs");
    List<String> argv =
        new ArrayList<>(LaunchPrefix.of(List.of(missing), Optional.empty(), Path.of("/unused")));
    argv.addAll(List.of("/bin/sh", "-c", "echo ran"));

    Probes.Result r = run(argv);

    assertThat(r.exit()).isEqualTo(125);
    assertThat(r.out()).doesNotContain("ran");
    assertThat(r.err()).contains("cannot join cgroup " + missing);
  }

  @Test
  void theUserSwitchIsSetprivWithNumericIds() {
    UserIdentity u = new UserIdentity("svc", 1001, 1002, List.of(1002, 27));
    assertThat(LaunchPrefix.of(List.of(), Optional.of(u), Path.of("/usr/bin/setpriv")))
        .containsExactly(
            "/usr/bin/setpriv", "--reuid=1001", "--regid=1002", "--groups=1002,27", "--");
    assertThat(LaunchPrefix.setpriv(new UserIdentity("x", 5, 5, List.of()), Path.of("/s")))
        .contains("--clear-groups");
  }

  @Test
  void theScriptTextIsFixed() {
    List<String> one = LaunchPrefix.of(List.of(temp.resolve("x")), Optional.empty(), Path.of("/s"));
    assertThat(one.subList(0, 4))
        .containsExactly("/bin/sh", "-c", LaunchPrefix.SCRIPT, "acceld-fence");
    assertThat(LaunchPrefix.SCRIPT).doesNotContain(temp.toString());
  }
}
