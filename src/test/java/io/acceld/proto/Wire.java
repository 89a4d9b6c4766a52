package io.acceld.proto;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Hand-encodes protobuf wire bytes for golden tests, independently of protobuf-java.
 *
 * <p>A field is a tag ({@code number << 3 | wireType}, as a varint) followed by its payload: a
 * varint (wire type 0), 8 little-endian bytes (1), or a varint length plus that many bytes (2).
 * Example: {@code Wire.field(1, Wire.string("abc"))} is {@code 0a 03 61 62 63}.
 */
final class Wire {
  private static final int VARINT = 0;
  private static final int I64 = 1;
  private static final int LEN = 2;

  /** A field payload together with the wire type that goes into its tag. */
  record Payload(int wireType, byte[] bytes) {}

  private Wire() {}

  /** One encoded field: tag then payload. */
  static byte[] field(int number, Payload payload) {
    return concat(varintBytes(((long) number << 3) | payload.wireType()), payload.bytes());
  }

  /** Wire type 0: int32/int64/uint32/uint64/bool/enum (negative numbers take 10 bytes). */
  static Payload varint(long value) {
    return new Payload(VARINT, varintBytes(value));
  }

  /** Wire type 0 for a bool. */
  static Payload bool(boolean value) {
    return varint(value ? 1 : 0);
  }

  /** Wire type 1 for a double. */
  static Payload dbl(double value) {
    return new Payload(
        I64, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(value).array());
  }

  /** Wire type 2 for a UTF-8 string. */
  static Payload string(String value) {
    return bytes(value.getBytes(StandardCharsets.UTF_8));
  }

  /** Wire type 2 for raw bytes. */
  static Payload bytes(byte[] value) {
    return new Payload(LEN, concat(varintBytes(value.length), value));
  }

  /** Wire type 2 for an embedded message given as its already encoded fields. */
  static Payload message(byte[]... fields) {
    return bytes(concat(fields));
  }

  /** Wire type 2 for a packed repeated varint field (proto3 default for repeated scalars). */
  static Payload packed(long... values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (long v : values) {
      out.writeBytes(varintBytes(v));
    }
    return bytes(out.toByteArray());
  }

  /** Concatenates encoded fields (a message body is just its fields back to back). */
  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Parses a hex string such as {@code "0a 03 61"} (spaces ignored) for literal goldens. */
  static byte[] hex(String hex) {
    String s = hex.replace(" ", "");
    if (s.length() % 2 != 0) {
      throw new IllegalArgumentException("odd number of hex digits: " + hex);
    }
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  private static byte[] varintBytes(long value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long v = value;
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
    return out.toByteArray();
  }
}
