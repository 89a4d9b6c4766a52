package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.config.HostPort;
import io.acceld.mesos.http.Authenticator;
import io.acceld.mesos.http.HttpAccess;
import io.acceld.mesos.http.MesosHttpServer;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.http.SchedulerEndpoint;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosExecutorClient;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Executor authentication over real HTTP: with {@code --mesos-auth} on, each spawned executor gets
 * its own token in {@code MESOS_EXECUTOR_AUTHENTICATION_TOKEN}, which opens the executor API for
 * that executor's calls and nothing else, and which survives an agent restart with the executor.
 */
class ExecutorAuthenticationTest {
  private static final String OPERATOR = "ops:pw";

  @TempDir Path dir;
  @TempDir Path secrets;
  private final RecordingSink sink = new RecordingSink();
  private Containers containers;
  private MesosHttpServer server;

  /** The scheduler API's far side; a token must never get this far. */
  private static final class RefusingScheduler implements SchedulerEndpoint {
    @Override
    public Reply subscribe(
        io.acceld.proto.mesos.v1.scheduler.Call call, Optional<String> principal) {
      return Reply.failure(500, "a scheduler call got through");
    }

    @Override
    public Reply handle(
        io.acceld.proto.mesos.v1.scheduler.Call call,
        Optional<String> streamId,
        Optional<String> principal) {
      return Reply.failure(500, "a scheduler call got through");
    }
  }

  private void start() throws IOException {
    containers = Containers.open(dir, settings(Duration.ofMinutes(1)), sink, new MutableClock());
    containers.recover();
    Path file = secrets.resolve("operators");
    if (!Files.exists(file)) {
      Files.writeString(file, OPERATOR + "\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    server =
        MesosHttpServer.start(
            new HostPort("127.0.0.1", 0),
            HttpAccess.of(Authenticator.fromFlag("basic:" + file), false)
                .withExecutorTokens(containers),
            new RefusingScheduler(),
            containers,
            () -> "{}");
  }

  /** Stops the agent's side only; the executor processes keep running, as after a restart. */
  private void stopAgent() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (containers != null) {
      containers.close();
      containers = null;
    }
  }

  @AfterEach
  void close() {
    stopAgent();
    ProcessCleanup.killEverythingStarted();
  }

  private String hostPort() {
    return "127.0.0.1:" + server.port();
  }

  private MesosExecutorClient executorClient(MediaType codec, String token) {
    return MesosExecutorClient.of(hostPort(), codec).withAuthorization("Bearer " + token);
  }

  /** Launches executor {@code id}, which writes its environment to its sandbox; its token. */
  private String launchExecutor(String id) throws IOException {
    ExecutorInfo info =
        executor(id, shell("env > env.tmp && mv env.tmp executor.env; exec sleep 300"));
    containers.launch(executorLaunch(info, NO_DEVICES, executorTask("task-of-" + id)));
    Eventually.await("executor " + id + "'s environment", () -> environmentOf(id).isPresent());
    Eventually.await("executor " + id + "'s record", () -> recordHolding(id).isPresent());
    return environmentOf(id).orElseThrow().get("MESOS_EXECUTOR_AUTHENTICATION_TOKEN");
  }

  /** The environment executor {@code id} wrote to its sandbox, once it has. */
  private Optional<Map<String, String>> environmentOf(String id) {
    try (var boxes = Files.list(dir.resolve(Containers.SANDBOXES))) {
      for (Path box : boxes.toList()) {
        Path file = box.resolve("executor.env");
        if (Files.exists(file)) {
          Map<String, String> env = parseEnv(file);
          if (id.equals(env.get("MESOS_EXECUTOR_ID"))) {
            return Optional.of(env);
          }
        }
      }
    } catch (IOException e) {
      // not there yet
    }
    return Optional.empty();
  }

  /** The checkpoint record of executor {@code executorId}, once written with its process. */
  private Optional<Path> recordHolding(String executorId) {
    try (var files = Files.list(dir.resolve(Containers.RECORDS))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
        if (root.has("executor") && root.has("pid")) {
          ExecutorInfo info =
              ExecutorInfo.parseFrom(Base64.getDecoder().decode(root.get("executor").asText()));
          if (info.getExecutorId().getValue().equals(executorId)) {
            return Optional.of(file);
          }
        }
      }
    } catch (IOException e) {
      // not written yet, or being replaced
    }
    return Optional.empty();
  }

  private static Call call(Call.Type type, String framework, String executor) {
    Call.Builder call =
        Call.newBuilder()
            .setType(type)
            .setFrameworkId(FrameworkID.newBuilder().setValue(framework))
            .setExecutorId(ExecutorID.newBuilder().setValue(executor));
    if (type == Call.Type.SUBSCRIBE) {
      call.setSubscribe(Call.Subscribe.getDefaultInstance());
    }
    return call.build();
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void anExecutorsTokenOpensTheExecutorApiForItsOwnCallsOnly(MediaType codec) throws Exception {
    start();
    String token = launchExecutor("exec-1");
    String other = launchExecutor("exec-2");
    assertThat(token).isNotBlank().hasSizeGreaterThanOrEqualTo(43).isNotEqualTo(other);

    try (MesosEventStream<Event> stream =
        executorClient(codec, token).subscribe(call(Call.Type.SUBSCRIBE, "fw-1", "exec-1"))) {
      assertThat(stream.status()).isEqualTo(200);
      Event subscribed = stream.awaitEvent(Event.Type.SUBSCRIBED, Duration.ofSeconds(10));
      assertThat(subscribed.getSubscribed().getExecutorInfo().getExecutorId().getValue())
          .isEqualTo("exec-1");
    }
    assertThat(
            executorClient(codec, token).call(call(Call.Type.HEARTBEAT, "fw-1", "exec-1")).status())
        .isEqualTo(202);

    MesosResponse impersonating =
        executorClient(codec, token).call(call(Call.Type.SUBSCRIBE, "fw-1", "exec-2"));
    assertThat(impersonating.status()).isEqualTo(403);
    assertThat(impersonating.body())
        .contains("issued to executor \"exec-1\" of framework \"fw-1\"")
        .contains("executor \"exec-2\" of framework \"fw-1\"");
    assertThat(
            executorClient(codec, token).call(call(Call.Type.HEARTBEAT, "fw-2", "exec-1")).status())
        .isEqualTo(403);

    // Not the operator's credentials: the scheduler API and /state stay closed to it.
    MesosResponse asScheduler =
        MesosSchedulerClient.of(hostPort(), codec)
            .withAuthorization("Bearer " + token)
            .call(
                io.acceld.proto.mesos.v1.scheduler.Call.newBuilder()
                    .setType(io.acceld.proto.mesos.v1.scheduler.Call.Type.TEARDOWN)
                    .setFrameworkId(FrameworkID.newBuilder().setValue("fw-1"))
                    .build());
    assertThat(asScheduler.status()).isEqualTo(401);
    assertThat(executorClient(codec, token).request("GET", "/state").status()).isEqualTo(401);

    assertThat(
            executorClient(codec, token + "x")
                .call(call(Call.Type.HEARTBEAT, "fw-1", "exec-1"))
                .status())
        .isEqualTo(401);
    assertThat(
            MesosExecutorClient.of(hostPort(), codec)
                .call(call(Call.Type.HEARTBEAT, "fw-1", "exec-1"))
                .status())
        .isEqualTo(401);
    // The operator may still make any executor call, as with Mesos's combined authenticators.
    String basic =
        "Basic " + Base64.getEncoder().encodeToString(OPERATOR.getBytes(StandardCharsets.UTF_8));
    assertThat(
            MesosExecutorClient.of(hostPort(), codec)
                .withAuthorization(basic)
                .call(call(Call.Type.HEARTBEAT, "fw-1", "exec-2"))
                .status())
        .isEqualTo(202);
  }

  @Test
  void theTokenIsKeptOwnerOnlyAndStillWorksAfterTheAgentRestarts() throws Exception {
    start();
    String token = launchExecutor("exec-1");
    Path record = recordHolding("exec-1").orElseThrow();
    assertThat(Files.readString(record)).contains(token);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(record)))
        .isEqualTo("rw-------");

    stopAgent();
    start(); // re-attaches the executor, which is still running

    try (MesosEventStream<Event> stream =
        executorClient(MediaType.JSON, token)
            .subscribe(call(Call.Type.SUBSCRIBE, "fw-1", "exec-1"))) {
      assertThat(stream.status()).isEqualTo(200);
      stream.awaitEvent(Event.Type.SUBSCRIBED, Duration.ofSeconds(10));
    }
  }
}
