package io.acceld.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random requests (methods, content types, Accept, stream IDs, bodies that are garbage, almost
 * calls or real calls of random types) to the real agent's Mesos scheduler and executor APIs. Every
 * answer must be a status with a text body, never a 5xx other than Mesos's own 501 for a call type
 * it does not implement; afterwards a real framework can still subscribe. Seeded: a failure names
 * its case.
 */
class MesosHttpFuzzIT {
  private static final long SEED = 0x68747470L;
  private static final int CASES = 2_000;
  private static final List<String> PATHS =
      List.of("/api/v1/scheduler", "/api/v1/executor", "/master/api/v1/scheduler");
  private static final List<String> METHODS =
      List.of("POST", "POST", "POST", "GET", "PUT", "DELETE");
  private static final List<String> CONTENT_TYPES =
      List.of(
          "application/json",
          "application/x-protobuf",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "text/plain",
          "application/json, application/x-protobuf",
          "",
          ";;;",
          "application/\u00e9");
  private static final List<String> ACCEPTS =
      List.of(
          "application/json", "application/x-protobuf", "*/*", "text/html", "application/*;q=0");

  @TempDir Path root;

  @Test
  @Timeout(120)
  void everyRandomRequestGetsAClearClientErrorAndTheBridgeKeepsServing() throws Exception {
    Random random = new Random(SEED);
    try (HostileNode node = HostileNode.start(root)) {
      int port = node.mesosPort();
      RawExchange connection = new RawExchange(port);
      int refused = 0;
      for (int i = 0; i < CASES; i++) {
        byte[] request = request(random, port);
        RawExchange.Answer answer;
        try {
          answer = connection.send(request);
        } catch (IOException e) {
          throw new AssertionError(
              "case " + i + " got no answer: " + printable(request) + ": " + e.getMessage(), e);
        }
        assertThat(answer.status())
            .as("case %d: %s -> %s", i, printable(request), answer.body())
            .satisfiesAnyOf(s -> assertThat(s).isLessThan(500), s -> assertThat(s).isEqualTo(501));
        if (answer.status() >= 400) {
          refused++;
          assertThat(answer.body()).as("case %d: %s", i, printable(request)).isNotBlank();
        }
        if (!answer.keepAlive()) {
          connection.close();
          connection = new RawExchange(port);
        }
      }
      connection.close();
      assertThat(refused).as("the generator must mostly produce refusals").isGreaterThan(CASES / 2);

      // a framework that speaks properly is still served by the same bridge
      MesosSchedulerClient client =
          MesosSchedulerClient.of("127.0.0.1:" + port, MediaType.PROTOBUF);
      try (MesosEventStream<io.acceld.proto.mesos.v1.scheduler.Event> events =
          client.subscribe(
              Call.newBuilder()
                  .setType(Call.Type.SUBSCRIBE)
                  .setSubscribe(
                      Call.Subscribe.newBuilder()
                          .setFrameworkInfo(FrameworkInfo.newBuilder().setUser("u").setName("n")))
                  .build())) {
        assertThat(events.status()).isEqualTo(200);
        assertThat(events.nextEvent(HostileNode.WAIT).getType())
            .isEqualTo(io.acceld.proto.mesos.v1.scheduler.Event.Type.SUBSCRIBED);
      }
    }
  }

  static byte[] request(Random random, int port) {
    String path = pick(random, PATHS);
    byte[] body = body(random, path.endsWith("executor"));
    StringBuilder head =
        new StringBuilder(pick(random, METHODS))
            .append(' ')
            .append(path)
            .append(" HTTP/1.1\r\nHost: 127.0.0.1:")
            .append(port)
            .append("\r\n");
    if (random.nextInt(8) != 0) {
      head.append("Content-Type: ").append(pick(random, CONTENT_TYPES)).append("\r\n");
    }
    if (random.nextBoolean()) {
      head.append("Accept: ").append(pick(random, ACCEPTS)).append("\r\n");
    }
    if (random.nextInt(3) == 0) {
      head.append("Mesos-Stream-Id: ")
          .append(random.nextBoolean() ? "not-a-uuid" : java.util.UUID.randomUUID())
          .append("\r\n");
    }
    if (random.nextInt(10) == 0) {
      head.append("Authorization: Basic ")
          .append(Long.toHexString(random.nextLong()))
          .append("\r\n");
    }
    if (random.nextInt(10) == 0) {
      head.append("X-").append(random.nextInt(1000)).append(": \u00ff\u0001\r\n");
    }
    head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(body);
    return out.toByteArray();
  }

  /** Garbage, almost-JSON, or a real call of a random type with random IDs in either codec. */
  private static byte[] body(Random random, boolean executor) {
    switch (random.nextInt(5)) {
      case 0 -> {
        byte[] bytes = new byte[random.nextInt(200)];
        random.nextBytes(bytes);
        return bytes;
      }
      case 1 -> {
        String json =
            random.nextBoolean()
                ? "{\"type\":\"" + randomWord(random) + "\"}"
                : "{\"type\":\"SUBSCRIBE\",\"subscribe\":{\"framework_info\":{\"user\":1}}}";
        return json.getBytes(StandardCharsets.UTF_8);
      }
      default -> {
        MediaType codec = random.nextBoolean() ? MediaType.JSON : MediaType.PROTOBUF;
        if (executor) {
          var types = io.acceld.proto.mesos.v1.executor.Call.Type.values();
          var call =
              io.acceld.proto.mesos.v1.executor.Call.newBuilder()
                  .setType(types[random.nextInt(types.length)])
                  .setFrameworkId(FrameworkID.newBuilder().setValue(randomWord(random)))
                  .setExecutorId(
                      io.acceld.proto.mesos.v1.ExecutorID.newBuilder()
                          .setValue(randomWord(random)));
          return MesosCodec.encode(call.build(), codec);
        }
        var types = Call.Type.values();
        Call.Builder call = Call.newBuilder().setType(types[random.nextInt(types.length)]);
        if (random.nextBoolean()) {
          call.setFrameworkId(FrameworkID.newBuilder().setValue(randomWord(random)));
        }
        return MesosCodec.encode(call.buildPartial(), codec);
      }
    }
  }

  private static String randomWord(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> "";
      case 1 -> "line\nbreak\u0000";
      case 2 -> "x".repeat(random.nextInt(2_000));
      default -> Long.toString(random.nextLong(), 36);
    };
  }

  private static <T> T pick(Random random, List<T> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static String printable(byte[] request) {
    String text =
        new String(request, 0, Math.min(request.length, 300), StandardCharsets.ISO_8859_1);
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\x%02x", (int) c));
    }
    return out.toString();
  }
}
