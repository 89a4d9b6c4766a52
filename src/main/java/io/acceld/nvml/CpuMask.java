package io.acceld.nvml;

import com.sun.jna.NativeLong;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes NVML's {@code unsigned long*} CPU masks: bit b of word w is CPU {@code w * bits + b},
 * where a word is a C {@code unsigned long} (64 bits on 64-bit Linux, hence NativeLong).
 */
final class CpuMask {
  private CpuMask() {}

  static List<Integer> toCpuList(NativeLong[] words) {
    int bitsPerWord = NativeLong.SIZE * 8;
    List<Integer> cpus = new ArrayList<>();
    for (int w = 0; w < words.length; w++) {
      long word = words[w].longValue();
      for (int bit = 0; bit < bitsPerWord; bit++) {
        if ((word & (1L << bit)) != 0) {
          cpus.add(w * bitsPerWord + bit);
        }
      }
    }
    return List.copyOf(cpus);
  }
}
