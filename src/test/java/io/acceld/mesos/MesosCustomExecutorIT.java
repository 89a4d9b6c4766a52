package io.acceld.mesos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ByteString;
import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.Environment;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Labels;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.ExampleExecutor;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosExecutorCalls;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A framework's own executor, a real Java program ({@link ExampleExecutor}) that the bridge spawns
 * from {@code ExecutorInfo.command} and that speaks the executor HTTP API back to it, inside the
 * real daemon next to a kubelet double: what the scheduler, the executor and the kubelet each see.
 */
class MesosCustomExecutorIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;

  private AgentDaemon start(KubeletDouble kubelet) throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    Map<String, String> flags = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
    AgentDaemon daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    kubelet.awaitRegistered(GPU, WAIT);
    return daemon;
  }

  /** The scheduler side: its stream, and every update it acknowledged. */
  private record Scheduler(
      MesosSchedulerClient client,
      MesosEventStream<Event> events,
      FrameworkID id,
      String stream,
      List<TaskStatus> acknowledged,
      Set<String> taken) {
    MesosResponse call(Call call) throws Exception {
      return client.call(call, Map.of("Mesos-Stream-Id", stream));
    }

    /**
     * The newest offer not yet taken nor rescinded. Read from everything seen, since waiting for an
     * UPDATE skips the offers that arrive meanwhile.
     */
    Offer nextOffer() {
      AtomicReference<Offer> found = new AtomicReference<>();
      Eventually.await(
          "a new offer",
          WAIT,
          () -> {
            List<Event> seen = events.seen();
            Set<String> gone = new HashSet<>(taken);
            seen.stream()
                .filter(e -> e.getType() == Event.Type.RESCIND)
                .forEach(e -> gone.add(e.getRescind().getOfferId().getValue()));
            seen.stream()
                .filter(e -> e.getType() == Event.Type.OFFERS)
                .flatMap(e -> e.getOffers().getOffersList().stream())
                .filter(o -> !gone.contains(o.getId().getValue()))
                .reduce((a, b) -> b)
                .ifPresent(found::set);
            return found.get() != null;
          });
      taken.add(found.get().getId().getValue());
      return found.get();
    }

    TaskStatus nextUpdate() throws Exception {
      TaskStatus status = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
      if (status.hasUuid()) {
        assertThat(call(acknowledge(id, status)).status()).isEqualTo(202);
        acknowledged.add(status);
      }
      return status;
    }

    /** The next update, which must be of {@code task} in {@code state}. */
    TaskStatus expect(String task, TaskState state) throws Exception {
      TaskStatus status = nextUpdate();
      assertThat(status.getTaskId().getValue()).isEqualTo(task);
      assertThat(status.getState()).as(status.getMessage()).isEqualTo(state);
      return status;
    }
  }

  private static ExecutorInfo example(ExecutorID id, MediaType codec, Path journal) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return ExecutorInfo.newBuilder()
        .setExecutorId(id)
        .setName("example executor")
        .setCommand(
            CommandInfo.newBuilder()
                .setShell(false)
                .setValue(java)
                .addArguments(java)
                // The JVM runs fenced at its executor's and tasks' mem: a small serial heap and C1
                // only keep it well inside that, where the defaults came within a page of 64 MiB.
                .addArguments("-Xmx32m")
                .addArguments("-XX:+UseSerialGC")
                .addArguments("-XX:TieredStopAtLevel=1")
                .addArguments("-XX:ReservedCodeCacheSize=16m")
                .addArguments("-Xss512k")
                .addArguments("-cp")
                .addArguments(System.getProperty("java.class.path"))
                .addArguments(ExampleExecutor.class.getName())
                .setEnvironment(
                    Environment.newBuilder()
                        .addVariables(variable(ExampleExecutor.CODEC_ENV, codec.value()))
                        .addVariables(variable(ExampleExecutor.JOURNAL_ENV, journal.toString()))))
        // As a Mesos framework does for its own executor: the JVM's memory is the executor's, and
        // its tasks' 64 MiB each comes on top, so the fence holds it to what it really needs.
        .addResources(scalar("cpus", 0.1))
        .addResources(scalar("mem", 128))
        .build();
  }

  private static Environment.Variable variable(String name, String value) {
    return Environment.Variable.newBuilder().setName(name).setValue(value).build();
  }

  private static TaskInfo task(
      String id, AgentID agent, ExecutorInfo executor, Path envFile, boolean hold) {
    TaskInfo.Builder task =
        TaskInfo.newBuilder()
            .setName(id)
            .setTaskId(TaskID.newBuilder().setValue(id))
            .setAgentId(agent)
            .addResources(scalar("cpus", 0.1))
            .addResources(scalar("mem", 64))
            .addResources(scalar("gpus", 1))
            .setExecutor(executor)
            .setData(ByteString.copyFromUtf8(envFile.toString()));
    if (hold) {
      task.setLabels(Labels.newBuilder().addLabels(ExampleExecutor.holdLabel()));
    }
    return task.build();
  }

  private static Map<String, String> envFile(Path file) throws Exception {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  private static List<String> journal(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean held(List<DeviceState> devices, Set<String> ids) {
    return devices.size() == 8
        && devices.stream().allMatch(d -> d.healthy() != ids.contains(d.id()));
  }

  /**
   * The one GPU the ledger leased to {@code task}. A custom executor's environment names the GPUs
   * of the task it was launched for, as in Mesos, so a later task of the same executor is found by
   * its lease: reading its GPU from the executor's environment passed only when the allocator
   * happened to give it the first task's GPU again (and failed on a busy machine, where the
   * ACCEPT's 5 s filter had expired and the offer was a different one).
   */
  private static String leasedTo(AgentDaemon daemon, String task) {
    List<String> gpus =
        daemon.ledger().current().leases().stream()
            .filter(
                l ->
                    l.holder() instanceof io.acceld.ledger.Holder.MesosTask t
                        && t.taskId().equals(task))
            .map(l -> l.deviceId())
            .toList();
    assertThat(gpus).as("the GPUs leased to %s", task).hasSize(1);
    return gpus.get(0);
  }

  /** The one GPU a task's environment names, which the kubelet must see taken. */
  private static String gpuOf(Path envFile) throws Exception {
    Map<String, String> env = envFile(envFile);
    String gpu = env.get("NVIDIA_VISIBLE_DEVICES");
    assertThat(gpu).as("the task's GPUs in %s", env).startsWith("GPU-").doesNotContain(",");
    assertThat(env.get("CUDA_VISIBLE_DEVICES")).isEqualTo(gpu);
    assertThat(env).containsKeys("MESOS_SANDBOX", "MESOS_AGENT_ENDPOINT", "MESOS_SLAVE_PID");
    return gpu;
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void aCustomExecutorRunsTasksWithTheirGpusAndIsKilledAndShutDown(MediaType codec)
      throws Exception {
    Path journal = root.resolve("journal");
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon = start(kubelet)) {
      MesosSchedulerClient client =
          MesosSchedulerClient.of("127.0.0.1:" + daemon.mesos().orElseThrow().port(), codec);
      MesosEventStream<Event> events =
          client.subscribe(subscribe(framework("custom", true), Optional.empty()));
      assertThat(events.status()).isEqualTo(200);
      Event subscribed = events.awaitEvent(Event.Type.SUBSCRIBED, WAIT);
      Scheduler fw =
          new Scheduler(
              client,
              events,
              subscribed.getSubscribed().getFrameworkId(),
              events.streamId().orElseThrow(),
              new ArrayList<>(),
              new HashSet<>());
      ExecutorInfo executor =
          example(MesosExecutorCalls.executorId("example-" + codec.name()), codec, journal);

      // A task that finishes: RUNNING then FINISHED, from the executor; its GPU back afterwards.
      Offer offer = fw.nextOffer();
      Path finishedEnv = root.resolve("finisher.env");
      assertThat(
              fw.call(
                      accept(
                          fw.id(),
                          offer,
                          List.of(
                              task("finisher", offer.getAgentId(), executor, finishedEnv, false))))
                  .status())
          .isEqualTo(202);
      TaskStatus running = fw.nextUpdate();
      while (running.getState() == TaskState.TASK_STARTING) {
        running = fw.nextUpdate();
      }
      assertThat(running.getState()).as(running.getMessage()).isEqualTo(TaskState.TASK_RUNNING);
      assertThat(running.getSource()).isEqualTo(TaskStatus.Source.SOURCE_EXECUTOR);
      assertThat(running.getExecutorId()).isEqualTo(executor.getExecutorId());
      fw.expect("finisher", TaskState.TASK_FINISHED);
      gpuOf(finishedEnv);
      kubelet.awaitDevices(GPU, d -> held(d, Set.of()), WAIT);

      // A task that runs until KILLed: its GPU held meanwhile, released after TASK_KILLED.
      offer = fw.nextOffer();
      Path killedEnv = root.resolve("killed.env");
      fw.call(
          accept(
              fw.id(),
              offer,
              List.of(task("killed", offer.getAgentId(), executor, killedEnv, true))));
      fw.expect("killed", TaskState.TASK_RUNNING);
      gpuOf(killedEnv);
      String killedGpu = leasedTo(daemon, "killed");
      kubelet.awaitDevices(GPU, d -> held(d, Set.of(killedGpu)), WAIT);
      // the executor's container holds its own 128 MiB and 0.1 cpus and its running task's
      int mesos = daemon.mesos().orElseThrow().port();
      assertThat(limits(mesos).get("memory_bytes").asLong()).isEqualTo((128L + 64) << 20);
      assertThat(limits(mesos).get("cpus").asDouble()).isCloseTo(0.2, within(1e-9));
      assertThat(fw.call(kill(fw.id(), "killed")).status()).isEqualTo(202);
      fw.expect("killed", TaskState.TASK_KILLED);
      kubelet.awaitDevices(GPU, d -> held(d, Set.of()), WAIT);
      // and once the task ended, its own again (the small JVM uses far less than 128 MiB)
      Eventually.await(
          "the executor's limits back to its own",
          WAIT,
          () -> limits(mesos).get("memory_bytes").asLong() == 128L << 20);
      assertThat(limits(mesos).get("cpus").asDouble()).isCloseTo(0.1, within(1e-9));

      // SHUTDOWN of the executor: it kills its task and exits, and the GPU comes back.
      offer = fw.nextOffer();
      Path shutEnv = root.resolve("shut.env");
      fw.call(
          accept(
              fw.id(), offer, List.of(task("shut", offer.getAgentId(), executor, shutEnv, true))));
      fw.expect("shut", TaskState.TASK_RUNNING);
      gpuOf(shutEnv);
      String shutGpu = leasedTo(daemon, "shut");
      kubelet.awaitDevices(GPU, d -> held(d, Set.of(shutGpu)), WAIT);
      MesosResponse shutdown =
          fw.call(
              Call.newBuilder()
                  .setFrameworkId(fw.id())
                  .setType(Call.Type.SHUTDOWN)
                  .setShutdown(
                      Call.Shutdown.newBuilder()
                          .setExecutorId(executor.getExecutorId())
                          .setAgentId(offer.getAgentId()))
                  .build());
      assertThat(shutdown.status()).isEqualTo(202);
      fw.expect("shut", TaskState.TASK_KILLED);
      kubelet.awaitDevices(GPU, d -> held(d, Set.of()), WAIT);
      Eventually.await("the executor to exit", WAIT, () -> journal(journal).contains("EXIT 0"));
      long pid =
          journal(journal).stream()
              .filter(l -> l.startsWith("SUBSCRIBED "))
              .mapToLong(l -> Long.parseLong(l.substring("SUBSCRIBED ".length())))
              .findFirst()
              .orElseThrow();
      Eventually.await(
          "executor process " + pid + " to be gone",
          WAIT,
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));

      // The executor saw each of its updates taken (202) and ACKNOWLEDGED by the agent.
      List<String> lines = journal(journal);
      List<String> updates = lines.stream().filter(l -> l.startsWith("UPDATE ")).toList();
      assertThat(updates)
          .extracting(l -> l.split(" ")[1] + " " + l.split(" ")[2])
          .containsExactly(
              "finisher TASK_RUNNING",
              "finisher TASK_FINISHED",
              "killed TASK_RUNNING",
              "killed TASK_KILLED",
              "shut TASK_RUNNING",
              "shut TASK_KILLED");
      for (String update : updates) {
        String[] f = update.split(" ");
        assertThat(f[4]).as(update).isEqualTo("202");
        assertThat(lines)
            .as("acknowledged: %s", update)
            .contains("ACKNOWLEDGED " + f[1] + " " + f[3]);
      }
      // And the scheduler acknowledged the same updates, uuid for uuid.
      assertThat(fw.acknowledged())
          .filteredOn(s -> s.getSource() == TaskStatus.Source.SOURCE_EXECUTOR)
          .extracting(s -> s.getTaskId().getValue() + " " + s.getState())
          .containsSubsequence(
              "finisher TASK_RUNNING", "finisher TASK_FINISHED", "killed TASK_KILLED");

      fw.call(Call.newBuilder().setFrameworkId(fw.id()).setType(Call.Type.TEARDOWN).build());
      events.close();
    }
  }

  /** {@code /state}'s limits of the one container, the executor's. */
  private static com.fasterxml.jackson.databind.JsonNode limits(int port) {
    try {
      String state =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create("http://127.0.0.1:" + port + "/state"))
                      .timeout(WAIT)
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString())
              .body();
      com.fasterxml.jackson.databind.JsonNode containers =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(state).get("containers");
      assertThat(containers).as("/state's containers").hasSize(1);
      return containers.get(0).get("limits");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
