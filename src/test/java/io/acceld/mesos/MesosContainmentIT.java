package io.acceld.mesos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.ProcessTable;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mesos tasks contained, through the real daemon and a framework client, with real cgroups, real
 * processes and the fixture node's device nodes made with mknod (NVIDIA's major, for which no
 * driver is loaded: an open the fence lets through fails with ENXIO, one it denies with EPERM).
 * After every task, nothing is left under the agent's cgroup parent.
 */
class MesosContainmentIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String ENXIO = "No such device or address";
  private static final String EPERM = "Operation not permitted";

  @TempDir Path root;

  private FixtureNode node;
  private KubeletDouble kubelet;
  private AgentDaemon daemon;

  @BeforeEach
  void node() throws Exception {
    // a task user must reach its sandbox and the fixture's /dev below the test's own directory
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
    node = Fixtures.eightGpuNode(root.resolve("node"));
    // the fixture is made under whatever umask an earlier agent in this JVM set (0077): the task
    // user must still reach the device nodes themselves, so that only the fence decides
    for (Path p = node.tree().devRoot(); !p.equals(root); p = p.getParent()) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  private void start(Map<String, String> more) throws Exception {
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    Map<String, String> flags = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
    flags.putAll(more);
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    kubelet.awaitRegistered(GPU, WAIT);
  }

  /** A subscribed framework of {@code user}. */
  private record Framework(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream) {
    void call(io.acceld.proto.mesos.v1.scheduler.Call call) throws Exception {
      assertThat(client.call(call, Map.of("Mesos-Stream-Id", stream)).status()).isIn(200, 202);
    }

    Offer offer() {
      return events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    }

    /** Acknowledges updates until {@code task} reaches {@code state}, which must come. */
    TaskStatus await(String task, TaskState state) throws Exception {
      while (true) {
        TaskStatus s = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
        if (s.hasUuid()) {
          call(acknowledge(id, s));
        }
        if (s.getTaskId().getValue().equals(task) && s.getState() == state) {
          return s;
        }
        assertThat(s.getState())
            .as("%s: %s", s.getTaskId().getValue(), s.getMessage())
            .isIn(TaskState.TASK_STARTING, TaskState.TASK_RUNNING, TaskState.TASK_STAGING);
      }
    }
  }

  private Framework subscribed(String user) throws Exception {
    MesosSchedulerClient client =
        MesosSchedulerClient.of(
            "127.0.0.1:" + daemon.mesos().orElseThrow().port(), MediaType.PROTOBUF);
    FrameworkInfo info = framework("contained", true).toBuilder().setUser(user).build();
    MesosEventStream<Event> events = client.subscribe(subscribe(info, Optional.empty()));
    Event first = events.nextEvent(WAIT);
    assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    return new Framework(
        client, events, first.getSubscribed().getFrameworkId(), events.streamId().orElseThrow());
  }

  private Path stdout(TaskStatus status) {
    return root.resolve("state/mesos/sandboxes")
        .resolve(status.getContainerStatus().getContainerId().getValue())
        .resolve("stdout");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private String get(int port, String path) throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(WAIT)
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void nothingLeftUnderTheParent() {
    assertThat(CgroupLeftovers.under()).as("cgroups under the agent's parent").isEmpty();
  }

  @Test
  void aTaskOpensItsOwnGpuButNoOtherAndRunsAsItsUser() throws Exception {
    start(Map.of());
    Framework fw = subscribed("nobody");
    Path dev = node.tree().devRoot();
    String probe =
        "id -u; echo \"USER=$USER\"; for n in 0 1 2 3 4 5 6 7; do"
            + " echo \"nvidia$n: $( (: <> '"
            + dev
            + "'/nvidia$n) 2>&1 )\"; done";
    Offer offer = fw.offer();
    fw.call(
        accept(
            fw.id(),
            offer,
            List.of(
                commandTask(
                    "probe",
                    offer.getAgentId(),
                    probe,
                    List.of(scalar("cpus", 0.1), scalar("mem", 64), scalar("gpus", 1))))));

    TaskStatus finished = fw.await("probe", TaskState.TASK_FINISHED);

    List<String> lines = read(stdout(finished)).lines().toList();
    assertThat(lines.get(0)).as("uid").isEqualTo("65534");
    assertThat(lines.get(1)).isEqualTo("USER=nobody");
    List<String> probes = lines.subList(2, lines.size());
    assertThat(probes).hasSize(8);
    assertThat(probes.stream().filter(l -> l.contains(ENXIO)))
        .as("its own GPU: %s", probes)
        .hasSize(1);
    assertThat(probes.stream().filter(l -> l.contains(EPERM)))
        .as("the others: %s", probes)
        .hasSize(7);
    nothingLeftUnderTheParent();
  }

  @Test
  void aTaskOverItsMemoryFailsWithTheContainerLimitationReason() throws Exception {
    start(Map.of());
    Framework fw = subscribed("nobody");
    Offer offer = fw.offer();
    fw.call(
        accept(
            fw.id(),
            offer,
            List.of(
                commandTask(
                    "hog",
                    offer.getAgentId(),
                    // tail keeps a whole line, and /dev/zero has none: it grows until stopped
                    "head -c 400000000 /dev/zero | tail > /dev/null",
                    List.of(scalar("cpus", 0.1), scalar("mem", 32))))));

    TaskStatus failed = fw.await("hog", TaskState.TASK_FAILED);

    assertThat(failed.getReason()).isEqualTo(TaskStatus.Reason.REASON_CONTAINER_LIMITATION_MEMORY);
    assertThat(failed.getMessage()).contains("32 MiB");
    assertThat(get(daemon.metricsServer().port(), "/metrics"))
        .contains("acceld_mesos_tasks_limited_total{limit=\"memory\"} 1.0")
        .contains("acceld_mesos_tasks_contained{isolation=\"devices,memory,cpu\"}");
    nothingLeftUnderTheParent();
  }

  /**
   * A task's processes that left its process tree every way a daemon does: a double fork
   * (reparented away from the task), setsid (its own session and process group, out of reach of the
   * group kill), both with SIGTERM and SIGHUP ignored. A kill still ends every one of them, and the
   * cgroup goes.
   */
  @Test
  void aKillEndsEveryProcessThatEscapedTheTasksTree() throws Exception {
    start(Map.of());
    Framework fw = subscribed("nobody");
    Offer offer = fw.offer();
    fw.call(
        accept(
            fw.id(),
            offer,
            List.of(
                commandTask(
                    "stubborn",
                    offer.getAgentId(),
                    "echo task=$$;"
                        + " (sh -c 'echo forked=$$; sleep 600 &"
                        + " echo forkedchild=$!; exec sleep 600' &);"
                        + " setsid sh -c 'echo session=$$; exec sleep 600' &"
                        + " (setsid sh -c 'trap \"\" TERM HUP; echo deaf=$$;"
                        + " sleep 600 & echo deafchild=$!; exec sleep 600' &);"
                        + " exec sleep 600",
                    List.of(scalar("cpus", 0.1), scalar("mem", 64), scalar("gpus", 1))))));
    TaskStatus running = fw.await("stubborn", TaskState.TASK_RUNNING);
    Path out = stdout(running);
    List<String> names = List.of("forked", "session", "deaf");
    // every process the task starts and that stays says its pid (the subshells only fork, and exit)
    List<String> started = List.of("task", "forked", "forkedchild", "session", "deaf", "deafchild");
    Eventually.await(
        "the escaping processes started",
        () -> started.stream().allMatch(n -> read(out).contains(n + "=")));
    long task = running.getContainerStatus().getExecutorPid();
    Map<String, ProcessHandle> escaped = new java.util.LinkedHashMap<>();
    for (String name : names) {
      long pid = Long.parseLong(read(out).replaceAll("(?s).*" + name + "=(\\d+).*", "$1"));
      escaped.put(name, ProcessHandle.of(pid).orElseThrow());
    }
    // they did escape: the double-forked ones are no descendants of the task, the setsid ones
    // lead their own process group, which the task's group kill does not reach
    java.util.Set<Long> descendants =
        ProcessHandle.of(task)
            .orElseThrow()
            .descendants()
            .map(ProcessHandle::pid)
            .collect(java.util.stream.Collectors.toSet());
    assertThat(descendants).doesNotContain(escaped.get("forked").pid(), escaped.get("deaf").pid());
    for (String name : List.of("session", "deaf")) {
      assertThat(processGroup(escaped.get(name).pid()))
          .as("%s's process group", name)
          .isEqualTo(escaped.get(name).pid())
          .isNotEqualTo(processGroup(task));
    }
    String container = running.getContainerStatus().getContainerId().getValue();
    assertThat(read(CgroupLeftovers.procs(container)).lines().map(Long::parseLong))
        .as("all of them in the task's cgroup")
        .contains(escaped.values().stream().map(ProcessHandle::pid).toArray(Long[]::new));
    // The whole of the container now: the processes the task recorded, and whatever its cgroups
    // hold besides, by pid and start time so that a reused pid is not taken for one of them.
    java.util.Set<Long> pids = new java.util.TreeSet<>();
    for (String name : started) {
      pids.add(Long.parseLong(read(out).replaceAll("(?s).*\\b" + name + "=(\\d+).*", "$1")));
    }
    List<Path> cgroups = CgroupLeftovers.cgroups(container);
    java.util.Set<Long> inCgroups = new java.util.TreeSet<>();
    for (Path cgroup : cgroups) {
      read(cgroup.resolve("cgroup.procs")).lines().map(Long::parseLong).forEach(inCgroups::add);
    }
    ProcessTable before = ProcessTable.read();
    assertThat(inCgroups)
        .as("the task's cgroups hold no process it did not record")
        .isSubsetOf(pids)
        .containsAll(pids.stream().filter(p -> before.get(p).isPresent()).toList());
    pids.addAll(inCgroups);
    List<ProcessTable.Key> members =
        pids.stream().flatMap(p -> before.get(p).stream()).map(ProcessTable.Entry::key).toList();
    assertThat(members).as("the recorded ones, all alive").hasSize(started.size());
    // /state shows its cgroups, user and limits
    com.fasterxml.jackson.databind.JsonNode shown =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(get(daemon.mesos().orElseThrow().port(), "/state"))
            .get("containers")
            .get(0);
    assertThat(shown.get("container_id").asText()).isEqualTo(container);
    assertThat(shown.get("cgroups").toString()).contains(CgroupLeftovers.PARENT + "/" + container);
    assertThat(shown.get("user").get("name").asText()).isEqualTo("nobody");
    assertThat(shown.get("limits").get("memory_bytes").asLong()).isEqualTo(64L << 20);
    List<String> allowed = new java.util.ArrayList<>();
    shown.get("allowed_devices").forEach(n -> allowed.add(n.asText()));
    List<String> denied = new java.util.ArrayList<>();
    shown.get("denied_devices").forEach(n -> denied.add(n.asText()));
    assertThat(allowed)
        .as("its GPU and the shared nodes")
        .isNotEmpty()
        .doesNotContainAnyElementsOf(denied);
    assertThat(denied).as("the GPUs it was not given").isNotEmpty();
    // and so does /devices (acceld devices --agent) on the row of the GPU it holds
    com.fasterxml.jackson.databind.JsonNode held = null;
    for (com.fasterxml.jackson.databind.JsonNode row :
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(get(daemon.metricsServer().port(), "/devices"))) {
      if (row.path("holderKind").asText().equals("mesos_task")) {
        held = row;
      }
    }
    assertThat(held).as("the task's GPU in /devices").isNotNull();
    assertThat(held.path("container").path("containerId").asText()).isEqualTo(container);
    assertThat(held.path("container").path("user").asText()).startsWith("nobody (65534:");
    assertThat(held.path("container").path("memoryBytes").asLong()).isEqualTo(64L << 20);

    fw.call(kill(fw.id(), "stubborn"));
    fw.await("stubborn", TaskState.TASK_KILLED);

    for (var e : escaped.entrySet()) {
      Eventually.await("the " + e.getKey() + " process is gone", () -> !e.getValue().isAlive());
    }
    // a zombie has ended too: reaping the orphans among them is init's, not the agent's
    Eventually.await(
        "every process the task started has ended",
        () -> members.stream().noneMatch(ProcessTable.read()::isAlive));
    for (Path cgroup : cgroups) {
      assertThat(cgroup).as("the container's cgroup").doesNotExist();
    }
    nothingLeftUnderTheParent();
  }

  /** The process group of {@code pid}: the 5th field of /proc/PID/stat, after the name. */
  private static long processGroup(long pid) {
    String stat = read(Path.of("/proc/" + pid + "/stat"));
    return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
  }

  @Test
  void anUnknownUserFailsTheTaskNamingIt() throws Exception {
    start(Map.of());
    Framework fw = subscribed("nobody");
    Offer offer = fw.offer();
    TaskInfo task =
        commandTask("stranger", offer.getAgentId(), "true", List.of(scalar("cpus", 0.1)));
    task =
        task.toBuilder()
            .setCommand(task.getCommand().toBuilder().setUser("acceld-no-such-user"))
            .build();
    fw.call(accept(fw.id(), offer, List.of(task)));

    TaskStatus failed = fw.await("stranger", TaskState.TASK_FAILED);

    assertThat(failed.getMessage()).contains("acceld-no-such-user");
    nothingLeftUnderTheParent();
  }

  @Test
  void aRootTaskIsRefusedNamingTheSetting() throws Exception {
    start(Map.of("mesos-allow-root-tasks", "false"));
    Framework fw = subscribed("root");
    Offer offer = fw.offer();
    fw.call(
        accept(
            fw.id(), offer, List.of(commandTask("rooted", offer.getAgentId(), "true", List.of()))));

    TaskStatus failed = fw.await("rooted", TaskState.TASK_FAILED);

    assertThat(failed.getMessage()).contains("--mesos-allow-root-tasks");
    assertThat(Set.of(failed.getReason()))
        .containsExactly(TaskStatus.Reason.REASON_CONTAINER_LAUNCH_FAILED);
    nothingLeftUnderTheParent();
  }

  @Test
  void withoutCgroupsTheBridgeDoesNotStartAndTheKubeletSideServes() throws Exception {
    Path none = Files.createDirectories(root.resolve("no-cgroups"));
    start(Map.of("cgroup-root", none.toString()));

    assertThat(daemon.mesos()).as("the Mesos bridge").isEmpty();
    assertThat(kubelet.registrations()).isNotEmpty();
  }
}
