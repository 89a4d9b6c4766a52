package io.acceld.nvml;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The small NVML structs that acceld reads on every pass, laid out as the 64-bit words JNA passes
 * as a {@code long[]} (or {@code int[]}), and decoded here at their C offsets (reference §3.3).
 *
 * <p>Why not JNA {@code Structure}s: each call with one costs a reflective write of every field
 * before and a reflective read after, plus a native buffer. The telemetry pass makes three such
 * calls per GPU every interval, the event wait one a second; as primitive arrays JNA only copies
 * the array in and out. {@code nvmlPciInfo_t} is bytes: read for every GPU and every NVLink peer on
 * each scan, its Structure's reflection was a fifth of the first scan's NVML time.
 *
 * <p>Two 32-bit fields that share a word: the one at the lower address is the word's low half on a
 * little-endian machine (x86-64 and arm64 Linux) and its high half on a big-endian one.
 */
final class NvmlWords {
  private NvmlWords() {}

  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  /** {@code nvmlEventData_t}, 32 bytes: device (0), eventType (8), eventData (16), ids (24, 28). */
  static final int EVENT_DATA_WORDS = 4;

  /** {@code nvmlMemory_t}, 24 bytes: total, free, used. */
  static final int MEMORY_WORDS = 3;

  /**
   * {@code nvmlMemory_v2_t}, 40 bytes: version (0, then 4 bytes of padding), total, reserved, free,
   * used.
   */
  static final int MEMORY_V2_WORDS = 5;

  /** {@code (2 << 24) | sizeof(nvmlMemory_v2_t)}; NVML rejects the v2 call without it. */
  static final int MEMORY_V2_VERSION = 0x02000028;

  /** {@code nvmlUtilization_t}, two {@code unsigned int}: gpu, memory (percent). */
  static final int UTILIZATION_INTS = 2;

  /**
   * {@code nvmlFieldValue_t}, 40 bytes: fieldId (0) and scopeId (4), timestamp (8), latencyUsec
   * (16), valueType (24) and nvmlReturn (28), then the 8-byte value union (32).
   */
  static final int FIELD_VALUE_WORDS = 5;

  /**
   * {@code nvmlDeviceAttributes_t} (v2 ABI), 40 bytes: multiprocessorCount (0),
   * sharedCopyEngineCount (4), sharedDecoderCount (8), sharedEncoderCount (12), sharedJpegCount
   * (16), sharedOfaCount (20), gpuInstanceSliceCount (24), computeInstanceSliceCount (28),
   * memorySizeMB (32, 64-bit).
   */
  static final int ATTRIBUTES_WORDS = 5;

  /**
   * {@code nvmlGpuInstanceProfileInfo_t} (v1), 48 bytes: id (0), isP2pSupported (4), sliceCount
   * (8), instanceCount (12), multiprocessorCount (16), copyEngineCount (20), decoderCount (24),
   * encoderCount (28), jpegCount (32), ofaCount (36), memorySizeMB (40, 64-bit).
   */
  static final int GPU_INSTANCE_PROFILE_WORDS = 6;

  /**
   * {@code nvmlGpuInstanceInfo_t}, 24 bytes: device (0, a pointer), id (8), profileId (12),
   * placement start (16) and size (20).
   */
  static final int GPU_INSTANCE_INFO_WORDS = 3;

  /**
   * {@code nvmlPciInfo_t}, 68 bytes: busIdLegacy (char[16], 0), domain (16), bus (20), device (24),
   * pciDeviceId (28), pciSubSystemId (32), busId (char[32], 36).
   */
  static final int PCI_INFO_BYTES = 68;

  private static final int VALUE_DOUBLE = 0;
  private static final int VALUE_UNSIGNED_INT = 1;
  private static final int VALUE_UNSIGNED_LONG = 2;
  private static final int VALUE_UNSIGNED_LONG_LONG = 3;
  private static final int VALUE_SIGNED_LONG_LONG = 4;
  private static final int VALUE_SIGNED_INT = 5;

  /** The 32-bit field at the lower address of {@code word}. */
  static int lowerInt(long word) {
    return LITTLE_ENDIAN ? (int) word : (int) (word >>> 32);
  }

  /** The 32-bit field at the higher address of {@code word}. */
  static int upperInt(long word) {
    return LITTLE_ENDIAN ? (int) (word >>> 32) : (int) word;
  }

  /** One word holding {@code lower} at its lower address and {@code upper} after it. */
  static long word(int lower, int upper) {
    long lo = Integer.toUnsignedLong(lower);
    long hi = Integer.toUnsignedLong(upper);
    return LITTLE_ENDIAN ? (hi << 32) | lo : (lo << 32) | hi;
  }

  static NvmlPciInfo pciInfo(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    int busIdEnd = 36;
    while (busIdEnd < PCI_INFO_BYTES && bytes[busIdEnd] != 0) {
      busIdEnd++;
    }
    return new NvmlPciInfo(
        b.getInt(16),
        b.getInt(20),
        b.getInt(24),
        b.getInt(28),
        b.getInt(32),
        new String(bytes, 36, busIdEnd - 36, StandardCharsets.US_ASCII));
  }

  static NvmlEvent event(long[] words, NvmlDevice device, Optional<String> uuid) {
    return new NvmlEvent(device, uuid, words[1], words[2], lowerInt(words[3]), upperInt(words[3]));
  }

  static NvmlMigAttributes attributes(long[] w) {
    return new NvmlMigAttributes(
        lowerInt(w[0]),
        upperInt(w[0]),
        lowerInt(w[1]),
        upperInt(w[1]),
        lowerInt(w[2]),
        upperInt(w[2]),
        lowerInt(w[3]),
        upperInt(w[3]),
        w[4]);
  }

  static NvmlGpuInstanceProfile gpuInstanceProfile(int index, long[] w) {
    return new NvmlGpuInstanceProfile(
        index, lowerInt(w[0]), lowerInt(w[1]), upperInt(w[1]), lowerInt(w[2]), w[5]);
  }

  /** The profile ID of a GPU instance's info (offset 12). */
  static int gpuInstanceProfileId(long[] w) {
    return upperInt(w[1]);
  }

  /** An {@code nvmlMemory_v2_t} to pass in: zero but for its version. */
  static long[] memoryV2Request() {
    long[] words = new long[MEMORY_V2_WORDS];
    words[0] = word(MEMORY_V2_VERSION, 0);
    return words;
  }

  static NvmlMemoryInfo memory(long[] words) {
    return new NvmlMemoryInfo(words[0], -1, words[1], words[2]);
  }

  /** NVML's v2 {@code used} includes {@code reserved}. */
  static NvmlMemoryInfo memoryV2(long[] words) {
    return new NvmlMemoryInfo(words[1], words[2], words[3], words[4]);
  }

  /** An {@code nvmlFieldValue_t} array to pass in: each entry zero but for its fieldId. */
  static long[] fieldValuesRequest(List<NvmlField> fields) {
    long[] words = new long[fields.size() * FIELD_VALUE_WORDS];
    for (int i = 0; i < fields.size(); i++) {
      words[i * FIELD_VALUE_WORDS] = word(fields.get(i).id, 0);
    }
    return words;
  }

  /** Entry {@code i}'s own return code. */
  static int fieldReturn(long[] words, int i) {
    return upperInt(words[i * FIELD_VALUE_WORDS + 3]);
  }

  /**
   * Entry {@code i}'s value, decoded from the union's raw bits by its valueType; empty for a type
   * newer than this binding.
   */
  static Optional<Double> fieldValue(long[] words, int i) {
    int type = lowerInt(words[i * FIELD_VALUE_WORDS + 3]);
    long bits = words[i * FIELD_VALUE_WORDS + 4];
    // A 32-bit member of the union sits at its start, so at the word's lower address.
    return switch (type) {
      case VALUE_DOUBLE -> Optional.of(Double.longBitsToDouble(bits));
      case VALUE_UNSIGNED_INT -> Optional.of((double) Integer.toUnsignedLong(lowerInt(bits)));
      case VALUE_SIGNED_INT -> Optional.of((double) lowerInt(bits));
      case VALUE_UNSIGNED_LONG, VALUE_UNSIGNED_LONG_LONG -> Optional.of(unsignedToDouble(bits));
      case VALUE_SIGNED_LONG_LONG -> Optional.of((double) bits);
      default -> Optional.empty();
    };
  }

  private static double unsignedToDouble(long bits) {
    return bits >= 0 ? bits : (bits >>> 1) * 2.0 + (bits & 1);
  }
}
