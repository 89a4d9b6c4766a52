package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.AgentConfig.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private Path file(String yaml) throws Exception {
    Path f = dir.resolve("acceld.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  private static AgentConfig load(Map<String, String> flags, Map<String, String> env, Path file) {
    return ConfigLoader.load(flags, env, Optional.ofNullable(file));
  }

  @Test
  void defaultsApplyWhenNothingIsSet() {
    AgentConfig config = load(Map.of(), Map.of(), null);

    assertThat(config.get(Settings.SYSFS_ROOT)).isEqualTo(Path.of("/sys"));
    assertThat(config.get(Settings.DEV_ROOT)).isEqualTo(Path.of("/dev"));
    assertThat(config.get(Settings.PROC_ROOT)).isEqualTo(Path.of("/proc"));
    assertThat(config.get(Settings.NVML_LIBRARY)).isEqualTo("libnvidia-ml.so.1");
    assertThat(config.sourceOf(Settings.SYSFS_ROOT)).isEqualTo(Source.DEFAULT);
  }

  @Test
  void flagBeatsEnvBeatsFileBeatsDefault() throws Exception {
    Path f = file("sysfs-root: /file/sys\ndev-root: /file/dev\nproc-root: /file/proc\n");
    Map<String, String> env =
        Map.of("ACCELD_SYSFS_ROOT", "/env/sys", "ACCELD_DEV_ROOT", "/env/dev");
    Map<String, String> flags = Map.of("sysfs-root", "/flag/sys");

    AgentConfig config = load(flags, env, f);

    assertThat(config.get(Settings.SYSFS_ROOT)).isEqualTo(Path.of("/flag/sys"));
    assertThat(config.sourceOf(Settings.SYSFS_ROOT)).isEqualTo(Source.FLAG);
    assertThat(config.get(Settings.DEV_ROOT)).isEqualTo(Path.of("/env/dev"));
    assertThat(config.sourceOf(Settings.DEV_ROOT)).isEqualTo(Source.ENV);
    assertThat(config.get(Settings.PROC_ROOT)).isEqualTo(Path.of("/file/proc"));
    assertThat(config.sourceOf(Settings.PROC_ROOT)).isEqualTo(Source.FILE);
    assertThat(config.get(Settings.NVML_LIBRARY)).isEqualTo("libnvidia-ml.so.1");
  }

  @Test
  void theConfigFileCanBeNamedByEnv() throws Exception {
    Path f = file("nvml-library: none\n");
    AgentConfig config = load(Map.of(), Map.of("ACCELD_CONFIG", f.toString()), null);

    assertThat(config.get(Settings.NVML_LIBRARY)).isEqualTo("none");
    assertThat(config.configFile()).contains(f);
  }

  @Test
  void rulesAreReadFromTheFile() throws Exception {
    Path f =
        file(
            """
            rules:
              - vendor: 0x1d0f
                class: "0x08"
                driver: neuron
                resource: aws.amazon.com/neuron
              - vendor: 10de
                device: 0x2330
                resource: example.com/h100
            """);

    AgentConfig config = load(Map.of(), Map.of(), f);

    assertThat(config.rules()).hasSize(2);
    assertThat(config.rules().get(0).resource()).isEqualTo("aws.amazon.com/neuron");
    assertThat(config.rules().get(0).driver()).contains("neuron");
    assertThat(config.rules().get(1).vendor()).isEqualTo(OptionalInt.of(0x10de));
    assertThat(config.rules().get(1).device()).isEqualTo(OptionalInt.of(0x2330));
  }

  @Test
  void anUnknownKeyNamesTheFileTheLineAndTheKeyWithASuggestion() throws Exception {
    Path f = file("# settings\ndev-root: /dev\nsysfs-rot: /sys\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("line 3")
        .hasMessageContaining("'sysfs-rot'")
        .hasMessageContaining("did you mean 'sysfs-root'");
  }

  @Test
  void aWrongTypeNamesTheFileTheLineAndTheKey() throws Exception {
    Path f = file("sysfs-root: /sys\nrescan-interval: soon\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("line 2")
        .hasMessageContaining("'rescan-interval'")
        .hasMessageContaining("duration");
  }

  @Test
  void aListWhereAValueBelongsIsAnError() throws Exception {
    Path f = file("dev-root:\n  - /a\n  - /b\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .hasMessageContaining("line 2")
        .hasMessageContaining("'dev-root'")
        .hasMessageContaining("got a list");
  }

  @Test
  void aSyntaxErrorNamesTheFileAndLine() throws Exception {
    Path f = file("sysfs-root: /sys\ndev-root: [unclosed\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("YAML syntax error")
        .hasMessageContaining("line 3");
  }

  @Test
  void aDuplicateKeyIsAnError() throws Exception {
    Path f = file("dev-root: /a\ndev-root: /b\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("dev-root");
  }

  @Test
  void badRulesAreLocated() throws Exception {
    Path noResource = file("rules:\n  - vendor: 0x10de\n");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), noResource))
        .hasMessageContaining("line 2")
        .hasMessageContaining("needs a 'resource'");

    Path badVendor = file("rules:\n  - vendor: nvidia\n    resource: example.com/gpu\n");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), badVendor))
        .hasMessageContaining("line 2")
        .hasMessageContaining("'rules.vendor'")
        .hasMessageContaining("hex ID");

    Path badName = file("rules:\n  - vendor: 0x10de\n    resource: gpu\n");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), badName))
        .hasMessageContaining("line 2")
        .hasMessageContaining("<domain>/<name>");

    Path unknown = file("rules:\n  - vendor: 0x10de\n    colour: green\n    resource: x.com/y\n");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), unknown))
        .hasMessageContaining("line 3")
        .hasMessageContaining("'rules.colour'");
  }

  @Test
  void aFileThatIsNotAMappingIsAnError() throws Exception {
    Path f = file("- just\n- a list\n");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), f)).hasMessageContaining("must be a mapping");
  }

  @Test
  void anEmptyFileMeansDefaults() throws Exception {
    Path f = file("# nothing yet\n");
    assertThat(load(Map.of(), Map.of(), f).get(Settings.DEV_ROOT)).isEqualTo(Path.of("/dev"));
  }

  @Test
  void aNamedFileThatDoesNotExistIsAnError() {
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(() -> load(Map.of(), Map.of(), missing))
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
  }

  @Test
  void badEnvAndFlagValuesNameTheirSource() {
    assertThatThrownBy(() -> load(Map.of(), Map.of("ACCELD_LOG_LEVEL", "loud"), null))
        .hasMessageContaining("environment variable ACCELD_LOG_LEVEL")
        .hasMessageContaining("loud");
    assertThatThrownBy(() -> load(Map.of("rescan-interval", "10 minutes"), Map.of(), null))
        .hasMessageContaining("flag --rescan-interval")
        .hasMessageContaining("duration");
  }

  @Test
  void parsersAcceptTheDocumentedForms() {
    assertThat(Parsers.duration().parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Parsers.duration().parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Parsers.duration().parse("0")).isEqualTo(Duration.ZERO);
    assertThat(Parsers.hostPort().parse("0.0.0.0:9445")).isEqualTo(new HostPort("0.0.0.0", 9445));
    assertThat(Parsers.hostPort().parse("[::1]:80")).isEqualTo(new HostPort("::1", 80));
    assertThat(Parsers.integerList().parse("13, 31,43")).containsExactly(13, 31, 43);
    assertThat(Parsers.bool().parse("false")).isFalse();
    assertThatThrownBy(() -> Parsers.hostPort().parse("9445")).hasMessageContaining("HOST:PORT");
    assertThatThrownBy(() -> Parsers.integer(1, 16).parse("0"))
        .hasMessageContaining("from 1 to 16");
  }

  @Test
  void aCgroupParentThatCouldLeaveItsHierarchyIsRefusedNamingTheFlag() {
    assertThat(load(Map.of(), Map.of(), null).get(Settings.MESOS_CGROUP_PARENT))
        .isEqualTo("acceld/mesos");
    assertThat(
            load(Map.of("mesos-cgroup-parent", "node-a.slice/acceld"), Map.of(), null)
                .get(Settings.MESOS_CGROUP_PARENT))
        .isEqualTo("node-a.slice/acceld");
    for (String bad : List.of("/acceld/mesos", "../mesos", "acceld//mesos", "acceld/..", "")) {
      assertThatThrownBy(() -> load(Map.of("mesos-cgroup-parent", bad), Map.of(), null))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--mesos-cgroup-parent")
          .hasMessageContaining("relative path of plain names");
    }
  }

  @Test
  void aHugeDurationIsAClearErrorNotAnOverflow() {
    assertThatThrownBy(() -> load(Map.of("rescan-interval", "999999999999999999h"), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("flag --rescan-interval")
        .hasMessageContaining("too long");
    assertThatThrownBy(
            () -> load(Map.of("rescan-interval", "99999999999999999999999s"), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("too long");
    assertThat(
            load(Map.of("rescan-interval", "8760h"), Map.of(), null).get(Settings.RESCAN_INTERVAL))
        .isEqualTo(java.time.Duration.ofDays(365));
  }

  @Test
  void aNulInAStringSettingIsAClearErrorNamingTheLine() throws Exception {
    Path f = file("log-level: info\nnvml-library: \"\\u0000\"\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("nvml-library")
        .hasMessageContaining("control character (\\u0000)");
    assertThatThrownBy(() -> load(Map.of("sysfs-root", "/sys\u0000x"), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("control character");
  }

  @Test
  void aConfigFileOverOneMebibyteIsRefusedAtOnce() throws Exception {
    Path f = file("# " + "x".repeat(YamlConfigFile.MAX_BYTES) + "\nlog-level: info\n");

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("larger than 1 MiB");
  }

  @Test
  void bytesThatAreNotUtf8AreAnErrorNamingTheLine() throws Exception {
    Path f = dir.resolve("latin1.yaml");
    Files.write(
        f, "log-level: info\nnode-name: caf".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Files.write(f, new byte[] {(byte) 0xe9, '\n'}, java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> load(Map.of(), Map.of(), f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("0xe9")
        .hasMessageContaining("not UTF-8");
  }
}
