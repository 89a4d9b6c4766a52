package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NvmlReturnTest {
  @Test
  void everyDocumentedCodeHasItsCName() {
    assertThat(NvmlReturn.name(0)).isEqualTo("NVML_SUCCESS");
    assertThat(NvmlReturn.name(9)).isEqualTo("NVML_ERROR_DRIVER_NOT_LOADED");
    assertThat(NvmlReturn.name(15)).isEqualTo("NVML_ERROR_GPU_IS_LOST");
    assertThat(NvmlReturn.name(18)).isEqualTo("NVML_ERROR_LIB_RM_VERSION_MISMATCH");
    assertThat(NvmlReturn.name(25)).isEqualTo("NVML_ERROR_ARGUMENT_VERSION_MISMATCH");
    assertThat(NvmlReturn.name(30)).isEqualTo("NVML_ERROR_RESET_TYPE_NOT_SUPPORTED");
    assertThat(NvmlReturn.name(999)).isEqualTo("NVML_ERROR_UNKNOWN");
    assertThat(IntStream.rangeClosed(1, 30).mapToObj(NvmlReturn::name))
        .allMatch(name -> name.startsWith("NVML_ERROR_"))
        .doesNotHaveDuplicates();
  }

  @Test
  void codesFromNewerDriversStillPrint() {
    assertThat(NvmlReturn.name(31)).isEqualTo("NVML_RETURN_31");
    assertThat(NvmlReturn.describe(-1)).isEqualTo("NVML_RETURN_-1 (-1)");
  }

  @Test
  void exceptionMessageNamesFunctionAndCode() {
    NvmlException e = new NvmlException("nvmlDeviceGetUUID", 15);
    assertThat(e).hasMessage("nvmlDeviceGetUUID failed: NVML_ERROR_GPU_IS_LOST (15)");
    assertThat(e.isGpuLost()).isTrue();
  }
}
