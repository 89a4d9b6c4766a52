package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.NativeLong;
import org.junit.jupiter.api.Test;

class CpuMaskTest {
  @Test
  void bitsAcrossWordsBecomeCpuIds() {
    NativeLong[] words = {
      new NativeLong(0b1011L | (1L << 63)), new NativeLong(0), new NativeLong(1)
    };
    assertThat(CpuMask.toCpuList(words)).containsExactly(0, 1, 3, 63, 128);
  }

  @Test
  void emptyMaskIsNoCpus() {
    assertThat(CpuMask.toCpuList(new NativeLong[] {new NativeLong(0)})).isEmpty();
  }
}
