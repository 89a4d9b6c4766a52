package io.acceld.nvml;

import com.sun.jna.Native;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes NVML's {@code unsigned long*} CPU masks: bit b of the mask is CPU b, counted from the
 * lowest address.
 *
 * <p>The mask is passed as a {@code long[]}, not as JNA {@code NativeLong}s (each converted one by
 * one through JNA's type mapping, 64 of them per GPU per scan). On a little-endian machine (x86-64
 * and arm64 Linux, where NVML ships) bit b sits at the same place in memory whether the words are
 * 32 or 64 bits wide, so 64-bit words decode either; only the count NVML is given is in C longs.
 */
final class CpuMask {
  private CpuMask() {}

  /**
   * Whether a {@code long[]} reads as NVML's mask here: not on a big-endian machine with 32-bit C
   * longs, where NVML does not ship.
   */
  static boolean decodable() {
    return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN || Native.LONG_SIZE == Long.BYTES;
  }

  /** {@code words}' size in C {@code unsigned long}s, the count NVML's cpuSetSize means. */
  static int cLongs(long[] words) {
    return words.length * Long.BYTES / Native.LONG_SIZE;
  }

  static List<Integer> toCpuList(long[] words) {
    List<Integer> cpus = new ArrayList<>();
    for (int w = 0; w < words.length; w++) {
      long word = words[w];
      while (word != 0) {
        int bit = Long.numberOfTrailingZeros(word);
        cpus.add(w * Long.SIZE + bit);
        word &= word - 1;
      }
    }
    return List.copyOf(cpus);
  }
}
