package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/systemd/install.sh run for real, as a non-root user into a temporary tree (every path it
 * writes is an environment variable) and with --no-start: what it installs is there, points at the
 * runtime it built, and works.
 */
class InstallScriptIT {
  private static final Path SCRIPT = Path.of("deploy/systemd/install.sh");

  @TempDir Path root;

  @Test
  void installsTheRuntimeUnitEnvFileCommandAndBashCompletion() throws Exception {
    Path prefix = root.resolve("opt/acceld");
    Path bin = root.resolve("usr/local/bin");
    Path completions = root.resolve("usr/local/share/bash-completion/completions");
    Map<String, String> env =
        Map.of(
            "PREFIX", prefix.toString(),
            "UNIT_DIR", root.resolve("etc/systemd/system").toString(),
            "ENV_FILE", root.resolve("etc/default/acceld").toString(),
            "CONFIG_DIR", root.resolve("etc/acceld").toString(),
            "BIN_DIR", bin.toString(),
            "COMPLETION_DIR", completions.toString(),
            "JAVA_HOME", System.getProperty("java.home"),
            // the AppCDS training run is RuntimeImageIT's to check; here it only costs time
            "ACCELD_SKIP_CDS", "true");

    Command.Result install =
        Command.run(
            Path.of("."),
            env,
            List.of(
                "bash",
                SCRIPT.toString(),
                "--no-start",
                RuntimeImage.jar().toAbsolutePath().toString()));

    assertThat(install.exitCode()).as(install.output()).isZero();
    assertThat(Files.readString(root.resolve("etc/systemd/system/acceld.service")))
        .contains("ExecStart=" + prefix + "/bin/acceld run");
    assertThat(root.resolve("etc/default/acceld")).isRegularFile();
    assertThat(root.resolve("etc/acceld")).isDirectory();
    assertThat(bin.resolve("acceld").toRealPath())
        .isEqualTo(prefix.resolve("bin/acceld").toRealPath());
    Path completion = completions.resolve("acceld");
    assertThat(completion.toRealPath())
        .isEqualTo(prefix.resolve("share/bash-completion/completions/acceld").toRealPath());
    assertThat(Command.run(root, "bash", "-n", completion.toString()).exitCode()).isZero();

    // The installed command runs on the installed runtime and says which build it is.
    Command.Result version =
        Command.run(
            root,
            Map.of("ACCELD_JAVA", "", "ACCELD_JAR", ""),
            List.of(bin.resolve("acceld").toString(), "--version"));
    assertThat(version.ok().lines().findFirst()).hasValue("acceld " + buildVersion());
  }

  private static String buildVersion() {
    return io.acceld.util.BuildInfo.current().version();
  }
}
