package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's {@code install.sh} on a tree that has only what it copies and links (no runtime, no
 * AppCDS archive, nothing started), into a throwaway root: the choices it makes, in seconds.
 * ReleaseIT runs it on the real tarball.
 */
class InstallScriptTest {
  private static final Path DROP_IN = Path.of("deploy/systemd/acceld-mesos.conf");

  @TempDir Path dir;
  Path tree;
  Path root;

  @BeforeEach
  void releaseTree() throws IOException {
    tree = dir.resolve("acceld-0.0.0");
    root = dir.resolve("root");
    copy(Path.of("deploy/release/install.sh"), "install.sh");
    copy(Path.of("deploy/systemd/acceld.service"), "share/systemd/acceld.service");
    copy(Path.of("deploy/systemd/acceld.env"), "share/systemd/acceld.env");
    copy(DROP_IN, "share/systemd/acceld-mesos.conf");
    copy(Path.of("deploy/release/config.yaml"), "share/acceld/config.yaml");
    for (String part :
        List.of(
            "bin/acceld",
            "lib/acceld.jar",
            "jre/bin/java",
            "lib/train-cds.sh",
            "share/bash-completion/completions/acceld")) {
      Files.createDirectories(tree.resolve(part).getParent());
      Files.writeString(tree.resolve(part), "");
    }
  }

  private void copy(Path from, String to) throws IOException {
    Files.createDirectories(tree.resolve(to).getParent());
    Files.copy(from, tree.resolve(to));
  }

  private Command.Result install(String... options) {
    Map<String, String> env = new HashMap<>(RuntimeImage.installEnvironment(root));
    env.put("ACCELD_SKIP_CDS", "true");
    List<String> command = new ArrayList<>(List.of("bash", tree.resolve("install.sh").toString()));
    command.addAll(List.of(options));
    return Command.run(dir, env, command);
  }

  private Path installedDropIn() {
    return root.resolve("etc/systemd/system/acceld.service.d/mesos.conf");
  }

  @Test
  void withMesosTheDropInIsInstalledBesideTheUnit() throws IOException {
    install("--no-start", "--mesos").ok();

    assertThat(root.resolve("etc/systemd/system/acceld.service")).isRegularFile();
    assertThat(installedDropIn()).hasSameBinaryContentAs(DROP_IN);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(installedDropIn())))
        .isEqualTo("rw-r--r--");
    // the options in either order
    install("--mesos", "--no-start").ok();
    assertThat(installedDropIn()).hasSameBinaryContentAs(DROP_IN);
  }

  @Test
  void withoutMesosThereIsNoDropInAndAnUpgradeLeavesOneAlone() throws IOException {
    install("--no-start").ok();
    assertThat(root.resolve("etc/systemd/system/acceld.service.d")).doesNotExist();

    Files.createDirectories(installedDropIn().getParent());
    Files.writeString(installedDropIn(), "[Service]\nKillMode=process\n");
    install("--no-start").ok();

    assertThat(installedDropIn()).hasContent("[Service]\nKillMode=process");
  }

  @Test
  void anUnknownOptionIsRefusedWithTheUsage() {
    Command.Result refused = install("--no-start", "--mesoss");

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.output()).contains("usage:").contains("[--mesos]");
    assertThat(root.resolve("opt/acceld")).doesNotExist();
  }
}
