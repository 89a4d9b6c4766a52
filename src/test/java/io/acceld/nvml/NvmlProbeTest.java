package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NvmlProbeTest {
  @Test
  void cudaVersionDecodesNvmlEncoding() {
    assertThat(NvmlProbe.cudaVersion(12040)).isEqualTo("12.4");
    assertThat(NvmlProbe.cudaVersion(11080)).isEqualTo("11.8");
    assertThat(NvmlProbe.cudaVersion(13000)).isEqualTo("13.0");
    assertThat(NvmlProbe.cudaVersion(12090)).isEqualTo("12.9");
  }
}
