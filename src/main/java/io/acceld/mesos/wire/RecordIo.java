package io.acceld.mesos.wire;

import java.nio.charset.StandardCharsets;

/**
 * Mesos's RecordIO framing ({@code apache/mesos:docs/recordio.md}): {@code <decimal byte
 * length>\n<bytes>}. One record per event, so a reader can find event boundaries in a byte stream
 * whatever the HTTP chunking.
 */
public final class RecordIo {
  private RecordIo() {}

  /** {@code record} framed: its length in decimal ASCII, a newline, then the bytes themselves. */
  public static byte[] encode(byte[] record) {
    byte[] header = (record.length + "\n").getBytes(StandardCharsets.US_ASCII);
    byte[] framed = new byte[header.length + record.length];
    System.arraycopy(header, 0, framed, 0, header.length);
    System.arraycopy(record, 0, framed, header.length, record.length);
    return framed;
  }
}
