package io.acceld.testing.mesos;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Reads Mesos RecordIO ({@code <decimal length>\n<bytes>}) from a byte stream, as a client would:
 * it knows nothing of HTTP chunks, so it also checks that framing survives any chunking.
 */
public final class RecordIoReader {
  private static final int MAX_LENGTH_DIGITS = 20;

  private final InputStream in;
  private final int maxRecordBytes;

  public RecordIoReader(InputStream in, int maxRecordBytes) {
    this.in = in;
    this.maxRecordBytes = maxRecordBytes;
  }

  /** The next record, or empty at a clean end of stream (between records). */
  public Optional<byte[]> next() throws IOException {
    ByteArrayOutputStream digits = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        if (digits.size() == 0) {
          return Optional.empty();
        }
        throw new EOFException("stream ended inside a RecordIO length");
      }
      if (b == '\n') {
        break;
      }
      if (b < '0' || b > '9' || digits.size() >= MAX_LENGTH_DIGITS) {
        throw new IOException("not a RecordIO length: byte " + b + " after " + digits);
      }
      digits.write(b);
    }
    long length = Long.parseLong(digits.toString());
    if (length <= 0 || length > maxRecordBytes) {
      throw new IOException("RecordIO length " + length + " out of range");
    }
    byte[] record = in.readNBytes((int) length);
    if (record.length != length) {
      throw new EOFException("stream ended inside a record of " + length + " bytes");
    }
    return Optional.of(record);
  }
}
