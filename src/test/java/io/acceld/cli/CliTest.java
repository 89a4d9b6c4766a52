package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.simulate.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI run in-process, as an operator would run it, on fixture trees. */
class CliTest {
  @TempDir Path root;

  record Run(int exit, String out, String err) {}

  static Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            args, new CliContext(env, new PrintWriter(out, true), new PrintWriter(err, true)));
    return new Run(exit, out.toString(), err.toString());
  }

  static String[] rootsOf(FixtureNode node, String... more) {
    List<String> args = new ArrayList<>(List.of("devices"));
    args.addAll(List.of(more));
    args.addAll(
        List.of(
            "--sysfs-root", node.tree().sysfsRoot().toString(),
            "--dev-root", node.tree().devRoot().toString(),
            "--proc-root", node.tree().procRoot().toString()));
    return args.toArray(String[]::new);
  }

  @Test
  void noOptionHasATypeWhoseBuiltInConverterPicocliIsToldToSkip() {
    List<java.util.regex.Pattern> skipped =
        java.util.Arrays.stream(Main.UNUSED_CONVERTERS.split(","))
            .map(java.util.regex.Pattern::compile)
            .toList();
    List<Class<?>> commands =
        List.of(
            Main.class,
            RunCommand.class,
            DevicesCommand.class,
            DoctorCommand.class,
            KubeletProbeCommand.class,
            VersionCommand.class,
            CompletionCommand.class,
            AgentCommand.class);
    List<String> typed = new ArrayList<>();
    for (Class<?> command : commands) {
      for (Class<?> c = command; c != null && c != Object.class; c = c.getSuperclass()) {
        for (java.lang.reflect.Field f : c.getDeclaredFields()) {
          if (f.isAnnotationPresent(picocli.CommandLine.Option.class)
              || f.isAnnotationPresent(picocli.CommandLine.Parameters.class)) {
            typed.add(c.getSimpleName() + "." + f.getName() + ": " + f.getGenericType());
            String type = f.getType().getName();
            assertThat(skipped)
                .as("%s.%s is a %s, whose converter picocli skips", c, f.getName(), type)
                .noneMatch(p -> p.matcher(type).matches());
          }
        }
      }
    }
    assertThat(typed).as("the options this test looked at").isNotEmpty();
  }

  @Test
  void devicesJsonListsExactlyTheAcceleratorsWithTheDocumentedKeys() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);

    Run run = run(Map.of(), rootsOf(node, "--json", "--nvml-library", "none"));

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(run.out());
    assertThat(devices.isArray()).isTrue();
    assertThat(devices).hasSize(2);
    JsonNode first = devices.get(0);
    assertThat(first.get("resource").asText()).isEqualTo("amd.com/gpu");
    assertThat(first.get("id").asText()).isEqualTo("0000:41:00.0");
    assertThat(first.get("vendor").asText()).isEqualTo("0x1002");
    assertThat(first.get("model").asText()).isEqualTo("AMD Instinct MI210");
    assertThat(first.get("pciAddress").asText()).isEqualTo("0000:41:00.0");
    assertThat(first.get("numaNode").asInt()).isZero();
    assertThat(first.get("health").asText()).isEqualTo("Healthy");
    List<String> nodes = new ArrayList<>();
    first.get("deviceNodes").forEach(n -> nodes.add(n.asText()));
    Path dev = node.tree().devRoot();
    assertThat(nodes)
        .containsExactly(
            dev.resolve("kfd").toString(),
            dev.resolve("dri/card1").toString(),
            dev.resolve("dri/renderD128").toString());
    assertThat(first.has("uuid")).isFalse();
  }

  @Test
  void devicesWithoutNvmlStillListsEveryNvidiaGpuByPciAddress() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root);

    Run run = run(Map.of(), rootsOf(node, "--json", "--nvml-library", "none"));

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(run.out());
    assertThat(devices).hasSize(8);
    devices.forEach(
        d -> {
          assertThat(d.get("resource").asText()).isEqualTo("nvidia.com/gpu");
          assertThat(d.get("id").asText()).isEqualTo(d.get("pciAddress").asText());
          assertThat(d.get("vendor").asText()).isEqualTo("0x10de");
        });
  }

  @Test
  void simulateGpusBuildsANodeWithThatManyGpus() throws Exception {
    Run run =
        run(
            Map.of(),
            "devices",
            "--simulate",
            "--simulate-gpus",
            "64",
            "--json",
            "--nvml-library",
            "none");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(run.out());
    assertThat(devices).hasSize(64);
    List<String> ids = new ArrayList<>();
    devices.forEach(d -> ids.add(d.get("id").asText()));
    assertThat(ids).doesNotHaveDuplicates();
  }

  @Test
  void aSimulateGpusCountOutsideOneTo256IsRefusedSayingTheRange() {
    Run flag = run(Map.of(), "devices", "--simulate", "--simulate-gpus", "0");
    Run env = run(Map.of("ACCELD_SIMULATE_GPUS", "many"), "devices", "--simulate");

    assertThat(flag.exit()).isEqualTo(2);
    assertThat(flag.err()).contains("simulate-gpus").contains("1 to 256");
    assertThat(env.exit()).isEqualTo(2);
    assertThat(env.err()).contains("ACCELD_SIMULATE_GPUS").contains("whole number");
  }

  @Test
  void thePlainFormIsAnAlignedTable() {
    FixtureNode node = FixtureVariants.mixedNode(root);

    Run run = run(Map.of(), rootsOf(node, "--nvml-library", "none"));

    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).startsWith("RESOURCE").contains("ID", "MODEL", "NUMA", "HEALTH");
    int healthColumn = lines.get(0).indexOf("HEALTH");
    assertThat(lines.get(1).substring(healthColumn)).startsWith("Healthy");
    assertThat(lines.get(2).substring(healthColumn)).startsWith("Healthy");
    assertThat(lines.get(1)).startsWith("amd.com/gpu").contains("0000:41:00.0");
  }

  @Test
  void devicesShowWhatIsAdvertisedWithSharingAndWhoHoldsEachReplica() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    Path config = root.resolve("acceld.yaml");
    Files.writeString(
        config, "resources:\n  nvidia.com/gpu:\n    replicas: 2\n    rename-shared: true\n");
    Path state = root.resolve("state");
    Files.createDirectories(state);
    String first = node.gpus().get(0).pciAddress();
    String second = node.gpus().get(1).pciAddress();
    String third = node.gpus().get(2).pciAddress();
    Instant since = Instant.parse("2026-12-01T10:00:00Z");
    new LeaseCheckpoint(state)
        .write(
            Availability.of(
                Inventory.EMPTY,
                List.of(
                    new Lease(
                        ReplicaId.of(first, 1),
                        new Holder.KubeletPod("ml", "trainer-0", "worker"),
                        since,
                        "Allocate"),
                    new Lease(
                        ReplicaId.whole(second),
                        new Holder.MesosTask("fw-1", "task-7"),
                        since,
                        "offer"),
                    new Lease(
                        ReplicaId.whole(third),
                        new Holder.DraClaim("ml", "train-gpus", "uid-7"),
                        since,
                        "NodePrepareResources"))));

    Run run =
        run(
            Map.of(),
            rootsOf(
                node,
                "--json",
                "--nvml-library",
                "none",
                "--config",
                config.toString(),
                "--state-dir",
                state.toString()));

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(run.out());
    assertThat(devices).as("8 GPUs x 2 replicas, as the kubelet is offered them").hasSize(16);
    Map<String, JsonNode> byId = new java.util.HashMap<>();
    devices.forEach(d -> byId.put(d.get("id").asText(), d));
    assertThat(byId.get(first + "::0").get("resource").asText()).isEqualTo("nvidia.com/gpu.shared");
    assertThat(byId.get(first + "::0").get("physicalId").asText()).isEqualTo(first);
    assertThat(byId.get(first + "::0").get("holderKind").asText()).isEqualTo("free");
    assertThat(byId.get(first + "::1").get("holderKind").asText()).isEqualTo("kubelet_pod");
    assertThat(byId.get(first + "::1").get("holder").asText()).isEqualTo("ml/trainer-0/worker");
    assertThat(byId.get(first + "::1").get("heldSince").asText()).isEqualTo(since.toString());
    // a whole-device lease holds every replica
    assertThat(byId.get(second + "::0").get("holder").asText()).isEqualTo("fw-1/task-7");
    assertThat(byId.get(second + "::1").get("holderKind").asText()).isEqualTo("mesos_task");
    assertThat(byId.get(third + "::0").get("holderKind").asText()).isEqualTo("dra_claim");
    assertThat(byId.get(third + "::0").get("holder").asText()).isEqualTo("ml/train-gpus");

    Run table =
        run(
            Map.of(),
            rootsOf(
                node,
                "--nvml-library",
                "none",
                "--config",
                config.toString(),
                "--state-dir",
                state.toString()));
    assertThat(table.out())
        .contains("HOLDER")
        .contains("pod ml/trainer-0/worker")
        .contains("mesos fw-1/task-7")
        .contains("dra_claim ml/train-gpus")
        .contains("free");
  }

  @Test
  void envVarsSetFlags() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Map<String, String> env =
        Map.of(
            "ACCELD_SYSFS_ROOT", node.tree().sysfsRoot().toString(),
            "ACCELD_DEV_ROOT", node.tree().devRoot().toString(),
            "ACCELD_NVML_LIBRARY", "none");

    Run run = run(env, "devices", "--json");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(new ObjectMapper().readTree(run.out())).hasSize(2);
  }

  @Test
  void aBrokenConfigFileExitsTwoNamingTheFileKeyAndLine() throws Exception {
    Path config = root.resolve("broken.yaml");
    Files.writeString(config, "sysfs-root: /sys\nnvml-libary: none\n");

    Run run = run(Map.of(), "devices", "--config", config.toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains(config.toString()).contains("line 2").contains("nvml-libary");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anUnknownFlagExitsTwo() {
    Run run = run(Map.of(), "devices", "--sysfs-rot", "/sys");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--sysfs-rot");
  }

  @Test
  void versionAndDashDashVersionPrintTheVersionRevisionBuildDateAndJava() {
    io.acceld.util.BuildInfo build = io.acceld.util.BuildInfo.current();
    for (String[] args : List.of(new String[] {"version"}, new String[] {"--version"})) {
      Run run = run(Map.of(), args);

      assertThat(run.exit()).as(args[0]).isZero();
      assertThat(run.out().lines())
          .as(args[0])
          .containsExactly(
              "acceld " + build.version(),
              "revision: " + build.revision(),
              "built: " + build.buildDate(),
              "java: " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")");
      assertThat(build.version()).isNotEqualTo("unknown");
      assertThat(java.time.Instant.parse(build.buildDate())).isNotNull();
    }
  }

  @Test
  void helpListsEverySettingWithItsEnvVar() {
    Run run = run(Map.of(), "devices", "--help");

    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .contains(
            "--sysfs-root", "ACCELD_SYSFS_ROOT", "--dev-root", "--proc-root", "--nvml-library")
        .contains("--config", "--simulate", "--json");
  }

  @Test
  void devicesHelpListsOnlyTheSettingsItUses() {
    Run run = run(Map.of(), "devices", "--help");

    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .contains("--agent", "--state-dir", "--log-format")
        .doesNotContain("--metrics-address", "--mesos-address", "--device-plugin-dir", "--cdi");
    assertThat(run(Map.of(), "devices", "--mesos-address", "127.0.0.1:1").err())
        .as("a setting devices does not use is an unknown option there")
        .contains("--mesos-address");
  }

  @Test
  void helpAndDashDashHelpShowNoneForAnEmptyDefault() {
    for (String[] args : List.of(new String[] {"help", "run"}, new String[] {"run", "--help"})) {
      Run run = run(Map.of(), args);

      assertThat(run.exit()).as(String.join(" ", args)).isZero();
      String help = run.out().replaceAll("\\s+", " ");
      assertThat(help)
          .as(String.join(" ", args))
          .contains("--expect-devices=EXPECTATIONS")
          .contains("Env ACCELD_EXPECT_DEVICES; default (none).")
          .contains("Env ACCELD_NODE_NAME; default (none).")
          .contains("Env ACCELD_SYSFS_ROOT; default /sys.")
          .doesNotContain("default .");
    }
  }

  /**
   * Each command's setting options are built only when it is the one run, or when help or
   * completion may show any command: the help must be the same both ways.
   */
  @Test
  void eachCommandsHelpIsTheSameAskedThroughHelpOrDashDashHelp() {
    for (String command : List.of("run", "doctor", "devices")) {
      Run viaHelp = run(Map.of(), "help", command);
      Run viaFlag = run(Map.of(), command, "--help");

      assertThat(viaHelp.exit()).as(command).isZero();
      assertThat(viaHelp.out()).as(command).isEqualTo(viaFlag.out()).contains("--state-dir");
    }
  }

  @Test
  void helpAloneListsTheCommands() {
    Run run = run(Map.of(), "help");

    assertThat(run.exit()).isZero();
    assertThat(run.out().lines().map(String::strip))
        .anyMatch(l -> l.startsWith("devices "))
        .anyMatch(l -> l.startsWith("run "))
        .anyMatch(l -> l.startsWith("kubelet-probe "))
        .anyMatch(l -> l.startsWith("version "))
        .anyMatch(l -> l.startsWith("completion "))
        .anyMatch(l -> l.startsWith("help "));
  }

  @Test
  void versionHelpSaysWhatItPrints() {
    Run run = run(Map.of(), "version", "--help");

    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("version, git revision, build date and Java runtime");
  }

  @Test
  void anAgentUrlWithoutAnHttpSchemeIsAUsageErrorSayingWhatToWrite() {
    for (String url : List.of("127.0.0.1:9445", "localhost:9445")) {
      Run run = run(Map.of(), "devices", "--agent", url);

      assertThat(run.exit()).as(url).isEqualTo(2);
      assertThat(run.err().lines().toList())
          .as(url)
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .startsWith("acceld: --agent '" + url + "'")
                      .endsWith("such as http://127.0.0.1:9445"));
    }
  }

  @Test
  void anUnreachableAgentExitsFiveWithOneLineAndNoStackTrace() throws Exception {
    int port;
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      port = closed.getLocalPort();
    }

    Run run = run(Map.of(), "devices", "--agent", "http://127.0.0.1:" + port);

    assertThat(run.exit()).isEqualTo(5);
    assertThat(run.err().lines().toList())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("acceld: cannot reach the agent at http://127.0.0.1:" + port)
                    .contains("--agent takes its --metrics-address"));
  }
}
