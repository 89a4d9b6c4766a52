package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import org.junit.jupiter.api.Test;

class CpuMaskTest {
  @Test
  void bitsAcrossWordsBecomeCpuIds() {
    long[] words = {0b1011L | (1L << 63), 0, 1};
    assertThat(CpuMask.toCpuList(words)).containsExactly(0, 1, 3, 63, 128);
  }

  @Test
  void emptyMaskIsNoCpus() {
    assertThat(CpuMask.toCpuList(new long[1])).isEmpty();
  }

  @Test
  void nvmlIsToldTheSizeInCLongs() {
    assertThat(CpuMask.cLongs(new long[64])).isEqualTo(64 * 8 / Native.LONG_SIZE);
  }
}
