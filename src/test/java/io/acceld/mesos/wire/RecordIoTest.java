package io.acceld.mesos.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.mesos.RecordIoReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordIoTest {
  /** Hands out one byte per read, as the worst chunking would. */
  private static InputStream trickle(byte[] bytes) {
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, 1));
      }
    };
  }

  @Test
  void framesWithTheDecimalLengthAndANewline() {
    assertThat(new String(RecordIo.encode("{\"a\":1}".getBytes(StandardCharsets.US_ASCII))))
        .isEqualTo("7\n{\"a\":1}");
  }

  @Test
  void recordsSurviveAnyChunking() throws IOException {
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    byte[][] records = {"x".getBytes(), new byte[10_000], "a\nb\n12\n".getBytes()};
    for (byte[] record : records) {
      stream.write(RecordIo.encode(record));
    }
    RecordIoReader reader = new RecordIoReader(trickle(stream.toByteArray()), 1 << 20);
    for (byte[] record : records) {
      assertThat(reader.next()).hasValueSatisfying(r -> assertThat(r).isEqualTo(record));
    }
    assertThat(reader.next()).isEmpty();
  }

  @Test
  void aTruncatedOrGarbledStreamIsAnError() {
    assertThatThrownBy(
            () -> new RecordIoReader(new ByteArrayInputStream("5\nabc".getBytes()), 100).next())
        .hasMessageContaining("inside a record");
    assertThatThrownBy(
            () -> new RecordIoReader(new ByteArrayInputStream("x\nabc".getBytes()), 100).next())
        .hasMessageContaining("not a RecordIO length");
  }
}
