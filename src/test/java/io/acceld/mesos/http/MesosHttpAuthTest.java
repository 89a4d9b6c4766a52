package io.acceld.mesos.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.HostPort;
import io.acceld.mesos.http.RecordingEndpoints.RecordingExecutor;
import io.acceld.mesos.http.RecordingEndpoints.RecordingScheduler;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosExecutorClient;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import io.acceld.util.OperatorError;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Check 16 (authentication required), the credentials file's mode, and the non-loopback rule. */
class MesosHttpAuthTest {
  @TempDir Path dir;

  private final RecordingScheduler scheduler = new RecordingScheduler();
  private final RecordingExecutor executor = new RecordingExecutor();

  private Path credentials(String name, String content, String mode) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  private MesosHttpServer start(Optional<Authenticator> auth) throws Exception {
    return MesosHttpServer.start(
        new HostPort("127.0.0.1", 0), HttpAccess.of(auth, false), scheduler, executor, () -> "{}");
  }

  private static String basic(String userPassword) {
    return "Basic "
        + Base64.getEncoder().encodeToString(userPassword.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void basicAuthIsRequiredEverywhereButVersion(MediaType codec) throws Exception {
    Path file =
        credentials("basic", "# operators\nalice:s3cret:with:colons\n\nbob:pw\n", "rw-------");
    try (MesosHttpServer server = start(Authenticator.fromFlag("basic:" + file))) {
      String hostPort = "127.0.0.1:" + server.port();
      MesosSchedulerClient anonymous = MesosSchedulerClient.of(hostPort, codec);
      MesosResponse empty = anonymous.post(Optional.empty(), new byte[0], Map.of());
      assertThat(empty.status()).isEqualTo(401);
      assertThat(empty.header("WWW-Authenticate")).contains("Basic realm=\"acceld\"");
      for (String path : new String[] {"/api/v1/executor", "/state", "/redirect"}) {
        assertThat(anonymous.request("GET", path).status()).as(path).isEqualTo(401);
      }
      assertThat(anonymous.request("GET", "/version").status()).isEqualTo(200);
      assertThat(
              MesosSchedulerClient.of(hostPort, codec)
                  .withAuthorization(basic("alice:wrong"))
                  .call(MesosHttpServerTest.teardownCall())
                  .status())
          .isEqualTo(401);
      assertThat(
              MesosExecutorClient.of(hostPort, codec)
                  .withAuthorization(basic("bob:pw"))
                  .call(
                      MesosHttpServerTest.executorCall(
                          io.acceld.proto.mesos.v1.executor.Call.Type.HEARTBEAT))
                  .status())
          .isEqualTo(202);

      MesosSchedulerClient alice =
          MesosSchedulerClient.of(hostPort, codec)
              .withAuthorization(basic("alice:s3cret:with:colons"));
      try (MesosEventStream<Event> stream = alice.subscribe(MesosHttpServerTest.subscribeCall())) {
        assertThat(stream.status()).isEqualTo(200);
        assertThat(stream.nextEvent(MesosHttpServerTest.WAIT).getType())
            .isEqualTo(Event.Type.SUBSCRIBED);
      }
      assertThat(alice.call(MesosHttpServerTest.teardownCall()).status()).isEqualTo(202);
      assertThat(scheduler.principals).containsExactly(Optional.of("alice"), Optional.of("alice"));
    }
  }

  @Test
  void bearerTokensAuthenticateWithoutAPrincipal() throws Exception {
    Path file = credentials("tokens", "tok-1\ntok-2\n", "r--------");
    try (MesosHttpServer server = start(Authenticator.fromFlag("bearer:" + file))) {
      String hostPort = "127.0.0.1:" + server.port();
      MesosResponse refused =
          MesosSchedulerClient.of(hostPort, MediaType.JSON)
              .withAuthorization("Bearer tok-3")
              .call(MesosHttpServerTest.teardownCall());
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.header("WWW-Authenticate")).contains("Bearer realm=\"acceld\"");
      assertThat(
              MesosSchedulerClient.of(hostPort, MediaType.JSON)
                  .withAuthorization("Bearer tok-2")
                  .call(MesosHttpServerTest.teardownCall())
                  .status())
          .isEqualTo(202);
      assertThat(scheduler.principals).containsExactly(Optional.empty());
    }
  }

  @Test
  void aCredentialsFileOthersCanReadIsRefusedNamingFileAndMode() throws Exception {
    Path file = credentials("open", "alice:pw\n", "rw-r--r--");
    assertThatThrownBy(() -> Authenticator.fromFlag("basic:" + file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("0644")
        .hasMessageContaining("0600");
    Path groupWritable = credentials("group", "tok\n", "rw--w----");
    assertThatThrownBy(() -> Authenticator.fromFlag("bearer:" + groupWritable))
        .hasMessageContaining("0620");
  }

  @Test
  void badFlagsAndFilesAreClearErrors() throws Exception {
    assertThat(Authenticator.fromFlag("")).isEmpty();
    assertThatThrownBy(() -> Authenticator.fromFlag("digest:/x"))
        .hasMessageContaining("--mesos-auth must be basic:FILE or bearer:FILE");
    assertThatThrownBy(() -> Authenticator.fromFlag("basic:"))
        .hasMessageContaining("names no credentials file");
    assertThatThrownBy(() -> Authenticator.fromFlag("basic:" + dir.resolve("missing")))
        .hasMessageContaining("cannot be read")
        .hasMessageContaining("missing");
    Path empty = credentials("empty", "# nobody\n", "rw-------");
    assertThatThrownBy(() -> Authenticator.fromFlag("basic:" + empty))
        .hasMessageContaining("holds no credentials");
    Path noColon = credentials("nocolon", "alice\n", "rw-------");
    assertThatThrownBy(() -> Authenticator.fromFlag("basic:" + noColon))
        .hasMessageContaining("line 1 is not user:password");
  }

  @Test
  void aNonLoopbackAddressNeedsAuthOrAnExplicitInsecureFlag() throws Exception {
    assertThatThrownBy(
            () ->
                MesosHttpServer.start(
                    new HostPort("0.0.0.0", 0),
                    HttpAccess.loopbackOnly(),
                    scheduler,
                    executor,
                    () -> "{}"))
        .isInstanceOf(OperatorError.class)
        .hasMessageContaining("--mesos-auth")
        .hasMessageContaining("--mesos-allow-insecure")
        .hasMessageNotContaining("\n");
    try (MesosHttpServer insecure =
        MesosHttpServer.start(
            new HostPort("0.0.0.0", 0),
            HttpAccess.of(Optional.empty(), true),
            scheduler,
            executor,
            () -> "{}")) {
      assertThat(insecure.port()).isPositive();
    }
    Path file = credentials("basic", "alice:pw\n", "rw-------");
    try (MesosHttpServer authenticated =
        MesosHttpServer.start(
            new HostPort("0.0.0.0", 0),
            HttpAccess.of(Authenticator.fromFlag("basic:" + file), false),
            scheduler,
            executor,
            () -> "{}")) {
      assertThat(authenticated.port()).isPositive();
    }
  }

  @Test
  void anUnknownExecutorTokenIsToldToRetryWhileTheAgentRecovers() throws Exception {
    Path file = credentials("bearer-ops", "operator-token\n", "rw-------");
    ExecutorTokens tokens =
        token ->
            token.equals("executor-token")
                ? Optional.of(new ExecutorTokens.Identity("fw-1", "ex-1"))
                : Optional.empty();
    try (MesosHttpServer server =
        MesosHttpServer.start(
            new HostPort("127.0.0.1", 0),
            HttpAccess.of(Authenticator.fromFlag("bearer:" + file), false)
                .withExecutorTokens(tokens),
            scheduler,
            executor,
            () -> "{}")) {
      String hostPort = "127.0.0.1:" + server.port();
      var heartbeat =
          MesosHttpServerTest.executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.HEARTBEAT);
      MesosExecutorClient survivor =
          MesosExecutorClient.of(hostPort, MediaType.JSON)
              .withAuthorization("Bearer token-of-an-executor-not-yet-re-attached");
      executor.recovering = true;
      // Its token is not known until its record is read: 503 makes it retry, 401 would not.
      assertThat(survivor.call(heartbeat).status()).isEqualTo(503);
      executor.recovering = false;
      assertThat(survivor.call(heartbeat).status()).isEqualTo(401);
      assertThat(
              MesosExecutorClient.of(hostPort, MediaType.JSON)
                  .withAuthorization("Bearer executor-token")
                  .call(heartbeat)
                  .status())
          .isEqualTo(202);
      // The operator's bearer token works on the executor API; an executor's never on the
      // scheduler API.
      assertThat(
              MesosExecutorClient.of(hostPort, MediaType.JSON)
                  .withAuthorization("Bearer operator-token")
                  .call(heartbeat)
                  .status())
          .isEqualTo(202);
      assertThat(
              MesosSchedulerClient.of(hostPort, MediaType.JSON)
                  .withAuthorization("Bearer executor-token")
                  .call(MesosHttpServerTest.teardownCall())
                  .status())
          .isEqualTo(401);
    }
  }
}
