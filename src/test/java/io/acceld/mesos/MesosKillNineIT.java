package io.acceld.mesos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.reconcileAll;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of the shipped agent with Mesos tasks running: after the restart no lease is lost
 * or doubled, the task that survived is re-attached, the one that died meanwhile is reported, and a
 * re-subscribed framework learns the truth.
 */
class MesosKillNineIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private final List<Process> agents = new ArrayList<>();
  private final List<Long> taskPids = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    agents.forEach(Process::destroyForcibly);
    taskPids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private Process startAgent(KubeletDouble kubelet, int port, int run) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
                "-jar",
                System.getProperty("acceld.jar", "target/acceld.jar"),
                "run",
                "--simulate",
                // the test's own: a killed agent cannot remove its simulated node from /dev/shm
                "--simulate-dir",
                Files.createDirectories(dir.resolve("simulated")).toString(),
                "--device-plugin-dir",
                kubelet.deviceDir().toString(),
                "--state-dir",
                dir.resolve("state").toString(),
                "--metrics-address",
                "127.0.0.1:0",
                "--mesos-address",
                "127.0.0.1:" + port,
                "--mesos-reserve",
                "cpus:0;mem:0;disk:0",
                // its framework's user is root; its tasks run fenced all the same
                "--mesos-allow-root-tasks",
                "true",
                "--mesos-cgroup-parent",
                CgroupLeftovers.PARENT));
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("out-" + run + ".txt").toFile())
            .redirectError(dir.resolve("err-" + run + ".txt").toFile())
            .start();
    agents.add(p);
    return p;
  }

  private record Framework(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream) {
    void call(io.acceld.proto.mesos.v1.scheduler.Call call) throws Exception {
      assertThat(client.call(call, Map.of("Mesos-Stream-Id", stream)).status()).isIn(200, 202);
    }

    /** Reads updates, acknowledging each, until every task in {@code wanted} reached its state. */
    Map<String, TaskStatus> await(Map<String, Set<TaskState>> wanted) throws Exception {
      Map<String, TaskStatus> reached = new HashMap<>();
      while (reached.size() < wanted.size()) {
        TaskStatus s = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
        if (s.hasUuid()) {
          call(acknowledge(id, s));
        }
        String task = s.getTaskId().getValue();
        if (wanted.getOrDefault(task, Set.of()).contains(s.getState())) {
          reached.put(task, s);
        }
      }
      return reached;
    }
  }

  /** Subscribes once the bridge answers: the agent process may still be starting. */
  private static Framework subscribeTo(
      KubeletDouble kubelet, int port, FrameworkInfo info, Optional<FrameworkID> id)
      throws Exception {
    MesosSchedulerClient client = MesosSchedulerClient.of("127.0.0.1:" + port, MediaType.JSON);
    kubelet.awaitCondition(
        "the bridge on port " + port + " has recovered and answers SUBSCRIBE",
        () -> {
          try {
            MesosResponse state = client.request("GET", "/state");
            return state.status() == 200 && !state.body().contains("\"recovering\":true");
          } catch (IOException notYetListening) {
            return false;
          }
        },
        WAIT);
    MesosEventStream<Event> events = client.subscribe(subscribe(info, id));
    assertThat(events.status()).as(events.errorBody()).isEqualTo(200);
    Event first = events.nextEvent(WAIT);
    assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    return new Framework(
        client, events, first.getSubscribed().getFrameworkId(), events.streamId().get());
  }

  private static String deviceOf(TaskStatus status) {
    return status.getLabels().getLabelsList().stream()
        .filter(l -> l.getKey().equals("acceld.io/devices"))
        .map(Label::getValue)
        .findFirst()
        .orElseThrow();
  }

  private static boolean heldExactly(List<DeviceState> devices, Set<String> held) {
    return devices.size() == 8
        && devices.stream().allMatch(d -> d.healthy() != held.contains(d.id()));
  }

  @Test
  void killNineLosesNoLeaseAndNoTask() throws Exception {
    int port = freePort();
    FrameworkInfo info = framework("kill-nine", true).toBuilder().setFailoverTimeout(600).build();
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process first = startAgent(kubelet, port, 1);
      Framework fw = subscribeTo(kubelet, port, info, Optional.empty());
      Offer offer = fw.events().awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
      Map<String, Path> pidFiles =
          Map.of("survivor", dir.resolve("survivor.pid"), "victim", dir.resolve("victim.pid"));
      List<io.acceld.proto.mesos.v1.TaskInfo> tasks = new ArrayList<>();
      pidFiles.forEach(
          (name, pidFile) ->
              tasks.add(
                  commandTask(
                      name,
                      offer.getAgentId(),
                      "echo $$ > '" + pidFile + "'; exec sleep 300",
                      List.of(scalar("cpus", 0.1), scalar("gpus", 1)))));
      fw.call(accept(fw.id(), offer, tasks));
      Map<String, TaskStatus> running =
          fw.await(
              Map.of(
                  "survivor", Set.of(TaskState.TASK_RUNNING),
                  "victim", Set.of(TaskState.TASK_RUNNING)));
      String survivorGpu = deviceOf(running.get("survivor"));
      String victimGpu = deviceOf(running.get("victim"));
      assertThat(survivorGpu).isNotEqualTo(victimGpu);
      kubelet.awaitDevices(GPU, d -> heldExactly(d, Set.of(survivorGpu, victimGpu)), WAIT);
      for (Path pidFile : pidFiles.values()) {
        // The shell creates the file before echo writes the pid into it: await the whole line.
        kubelet.awaitCondition(
            "the task wrote its pid",
            () -> Files.exists(pidFile) && readOrEmpty(pidFile).endsWith("\n"),
            WAIT);
        taskPids.add(Long.parseLong(Files.readString(pidFile).strip()));
      }

      first.destroyForcibly(); // SIGKILL: no shutdown hook, no final checkpoint
      assertThat(Waits.exited(first, Duration.ofSeconds(10))).isTrue();
      fw.events().close();
      long victimPid = Long.parseLong(Files.readString(pidFiles.get("victim")).strip());
      ProcessHandle victim = ProcessHandle.of(victimPid).orElseThrow();
      victim.destroyForcibly();
      Waits.get(victim.onExit(), Duration.ofSeconds(10));

      startAgent(kubelet, port, 2);
      Framework again = subscribeTo(kubelet, port, info, Optional.of(fw.id()));
      assertThat(again.id()).isEqualTo(fw.id());
      Map<String, TaskStatus> reported =
          again.await(
              Map.of(
                  "victim",
                  Set.of(TaskState.TASK_FAILED, TaskState.TASK_LOST, TaskState.TASK_KILLED)));
      assertThat(reported.get("victim").getMessage()).isNotBlank();
      kubelet.awaitDevices(GPU, d -> heldExactly(d, Set.of(survivorGpu)), WAIT);

      again.call(reconcileAll(again.id()));
      TaskStatus truth = null;
      while (truth == null) {
        TaskStatus s = again.events().awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
        if (s.hasUuid()) {
          again.call(acknowledge(again.id(), s));
        } else if (s.getTaskId().getValue().equals("survivor")) {
          truth = s;
        }
      }
      assertThat(truth.getState()).isEqualTo(TaskState.TASK_RUNNING);

      again.call(kill(again.id(), "survivor"));
      again.await(Map.of("survivor", Set.of(TaskState.TASK_KILLED)));
      long survivorPid = taskPids.get(new ArrayList<>(pidFiles.keySet()).indexOf("survivor"));
      ProcessHandle.of(survivorPid).ifPresent(h -> h.onExit().join());
      kubelet.awaitDevices(GPU, d -> heldExactly(d, Set.of()), WAIT);
    }
  }

  private static String readOrEmpty(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
