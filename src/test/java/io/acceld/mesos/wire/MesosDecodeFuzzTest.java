package io.acceld.mesos.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.testing.Waits;
import io.acceld.testing.mesos.RecordIoReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hostile bodies for the call decoders: random bytes, random JSON shaped like a {@code Call} (so
 * the generator reaches deep fields, not just the top-level syntax check) with wrong types and
 * extreme numbers, and bit-flipped protobuf. Every body must decode or be refused with a {@link
 * CallDecodeException} whose text says what was wrong; nothing else may escape, and no body may
 * take long. Seeded, so a failure names the case that reproduces it.
 */
class MesosDecodeFuzzTest {
  private static final long SEED = 0x4d65736f73L;
  private static final int CASES = 3_000;
  private static final Duration BUDGET = Waits.scaled(Duration.ofSeconds(20));

  private static final Message[] CALLS = {
    Call.getDefaultInstance(), io.acceld.proto.mesos.v1.executor.Call.getDefaultInstance()
  };

  /** Numbers and strings that have broken JSON-to-protobuf mappings before. */
  private static final String[] NASTY_NUMBERS = {
    "1e400",
    "-1e400",
    "1e999999999",
    "\"1e999999999\"",
    "\"1e-999999999\"",
    "\"9e2147483647\"",
    "1E-400",
    "\"-0\"",
    "18446744073709551616",
    "-9223372036854775809",
    "\"NaN\"",
    "\"Infinity\"",
    "0.5",
    "\"0x10\"",
    "1" + "0".repeat(999),
    "\"" + "9".repeat(5_000) + "\"",
    "true",
    "[]",
    "{}",
    "null",
    "\"\\u0000\"",
    "\"\\ud800\""
  };

  @Test
  void randomJsonShapedLikeACallIsDecodedOrRefusedClearly() {
    Random random = new Random(SEED);
    assertTimeoutPreemptively(
        BUDGET,
        () -> {
          for (int i = 0; i < CASES; i++) {
            Message prototype = CALLS[i % CALLS.length];
            StringBuilder json = new StringBuilder();
            object(prototype.getDescriptorForType(), random, 0, json);
            assertDecodesOrRefuses(
                json.toString().getBytes(StandardCharsets.UTF_8), MediaType.JSON, prototype, i);
          }
        });
  }

  @Test
  void randomBytesInEitherCodecAreDecodedOrRefusedClearly() {
    Random random = new Random(SEED + 1);
    assertTimeoutPreemptively(
        BUDGET,
        () -> {
          for (int i = 0; i < CASES; i++) {
            byte[] body = new byte[random.nextInt(256)];
            random.nextBytes(body);
            for (MediaType type : MediaType.values()) {
              assertDecodesOrRefuses(body, type, CALLS[i % CALLS.length], i);
            }
          }
        });
  }

  @Test
  void mutatedValidCallsAreDecodedOrRefusedClearly() {
    Random random = new Random(SEED + 2);
    assertTimeoutPreemptively(
        BUDGET,
        () -> {
          for (int i = 0; i < CASES; i++) {
            Message prototype = CALLS[i % CALLS.length];
            StringBuilder json = new StringBuilder();
            object(prototype.getDescriptorForType(), random, 0, json);
            Message valid;
            try {
              valid =
                  MesosCodec.decode(
                      json.toString().getBytes(StandardCharsets.UTF_8), MediaType.JSON, prototype);
            } catch (CallDecodeException e) {
              continue;
            }
            for (MediaType type : MediaType.values()) {
              byte[] body = MesosCodec.encode(valid, type);
              assertDecodesOrRefuses(mutate(body, random), type, prototype, i);
            }
          }
        });
  }

  @Test
  void hugeExponentsAreRefusedQuicklyWithTheFieldNamed() {
    // Found by this suite: "1e999999999" in an int64 field escaped as a NumberFormatException (a
    // 500), and the same as a string made BigDecimal compute 10^999999999 (minutes of CPU).
    for (String number : List.of("1e999999999", "\"1e999999999\"", "\"1e-999999999\"")) {
      byte[] body =
          ("{\"type\":\"KILL\",\"kill\":{\"task_id\":{\"value\":\"t\"},"
                  + "\"kill_policy\":{\"grace_period\":{\"nanoseconds\":"
                  + number
                  + "}}}}")
              .getBytes(StandardCharsets.UTF_8);
      assertTimeoutPreemptively(
          Waits.scaled(Duration.ofSeconds(2)),
          () ->
              assertThatThrownBy(
                      () -> MesosCodec.decode(body, MediaType.JSON, Call.getDefaultInstance()))
                  .isInstanceOf(CallDecodeException.class)
                  .hasMessageContaining("nanoseconds"));
    }
  }

  @Test
  void randomRecordsSurviveRandomChunkingAndGarbageIsRefused() throws IOException {
    Random random = new Random(SEED + 3);
    for (int round = 0; round < 200; round++) {
      List<byte[]> records = new ArrayList<>();
      ByteArrayOutputStream stream = new ByteArrayOutputStream();
      for (int r = random.nextInt(8); r >= 0; r--) {
        byte[] record = new byte[1 + random.nextInt(random.nextInt(3) == 0 ? 4 : 5_000)];
        random.nextBytes(record);
        records.add(record);
        stream.write(RecordIo.encode(record));
      }
      RecordIoReader reader =
          new RecordIoReader(chunked(stream.toByteArray(), random.nextInt(64) + 1), 1 << 20);
      for (byte[] record : records) {
        assertThat(reader.next()).hasValueSatisfying(r -> assertThat(r).isEqualTo(record));
      }
      assertThat(reader.next()).isEmpty();

      byte[] garbled = mutate(stream.toByteArray(), random);
      RecordIoReader garbledReader = new RecordIoReader(new ByteArrayInputStream(garbled), 1 << 20);
      try {
        while (garbledReader.next().isPresent()) {
          // a mutation may still frame; all that matters is that it ends or says why not
        }
      } catch (IOException e) {
        assertThat(e.getMessage()).isNotBlank();
      }
    }
  }

  // ---- the oracle ----

  private static void assertDecodesOrRefuses(
      byte[] body, MediaType type, Message prototype, int caseNumber) {
    try {
      Message decoded = MesosCodec.decode(body, type, prototype);
      assertThat(decoded.isInitialized())
          .as("case %d decoded a partial message", caseNumber)
          .isTrue();
    } catch (CallDecodeException e) {
      assertThat(e.getMessage())
          .as("case %d (%s)", caseNumber, type)
          .startsWith("Failed to ")
          .hasSizeGreaterThan("Failed to ".length() + 5);
    } catch (RuntimeException | Error e) {
      throw new AssertionError(
          "case "
              + caseNumber
              + " ("
              + type
              + ") escaped the decoder: "
              + new String(body, 0, Math.min(body.length, 400), StandardCharsets.UTF_8),
          e);
    }
  }

  // ---- generators ----

  /** A JSON object for {@code type}: mostly the right fields, sometimes wrong values or keys. */
  private static void object(Descriptor type, Random random, int depth, StringBuilder out) {
    out.append('{');
    boolean first = true;
    for (FieldDescriptor field : type.getFields()) {
      if (random.nextInt(depth < 2 ? 2 : 5) != 0) {
        continue;
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append('"').append(random.nextInt(30) == 0 ? "nope" : field.getName()).append("\":");
      if (field.isRepeated() && !field.isMapField() && random.nextInt(8) != 0) {
        out.append('[');
        for (int n = random.nextInt(3); n >= 0; n--) {
          value(field, random, depth, out);
          out.append(n > 0 ? "," : "");
        }
        out.append(']');
      } else if (field.isMapField()) {
        out.append("{\"k\":");
        value(field.getMessageType().findFieldByNumber(2), random, depth, out);
        out.append('}');
      } else {
        value(field, random, depth, out);
      }
    }
    out.append('}');
  }

  private static void value(FieldDescriptor field, Random random, int depth, StringBuilder out) {
    if (random.nextInt(12) == 0) {
      out.append(NASTY_NUMBERS[random.nextInt(NASTY_NUMBERS.length)]);
      return;
    }
    switch (field.getJavaType()) {
      case MESSAGE -> {
        if (depth > 6) {
          out.append("{}");
        } else {
          object(field.getMessageType(), random, depth + 1, out);
        }
      }
      case ENUM -> {
        var values = field.getEnumType().getValues();
        out.append('"')
            .append(
                random.nextInt(10) == 0
                    ? "NOT_A_VALUE"
                    : values.get(random.nextInt(values.size())).getName())
            .append('"');
      }
      case STRING -> out.append('"').append(Long.toString(random.nextLong(), 36)).append('"');
      case BYTE_STRING -> out.append(random.nextBoolean() ? "\"AAEC\"" : "\"not base64!\"");
      case BOOLEAN -> out.append(random.nextBoolean());
      case INT, LONG ->
          out.append(random.nextInt(5) == 0 ? random.nextLong() : random.nextInt(100));
      case FLOAT, DOUBLE -> out.append(random.nextDouble() * 1000);
    }
  }

  /** Bit flips, truncation, duplicated or inserted runs: what a broken client or proxy sends. */
  private static byte[] mutate(byte[] bytes, Random random) {
    byte[] out = bytes.clone();
    switch (random.nextInt(4)) {
      case 0 -> {
        for (int n = random.nextInt(4) + 1; n > 0 && out.length > 0; n--) {
          out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
        }
      }
      case 1 ->
          out = java.util.Arrays.copyOf(out, out.length == 0 ? 0 : random.nextInt(out.length));
      case 2 -> {
        ByteArrayOutputStream doubled = new ByteArrayOutputStream();
        doubled.writeBytes(out);
        doubled.writeBytes(out);
        out = doubled.toByteArray();
      }
      default -> {
        if (out.length > 0) {
          out[random.nextInt(out.length)] = (byte) random.nextInt(256);
        }
      }
    }
    return out;
  }

  /** Hands out at most {@code chunk} bytes per read, as an HTTP stream may. */
  private static InputStream chunked(byte[] bytes, int chunk) {
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }
}
