package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The JNA structures must match NVML's C layouts byte for byte (reference §3.3, x86-64). */
class NvmlLibraryLayoutTest {
  @Test
  void structureSizesMatchNvml() {
    assertThat(new NvmlLibrary.PciInfo().size()).isEqualTo(68);
    assertThat(new NvmlLibrary.Memory().size()).isEqualTo(24);
    assertThat(new NvmlLibrary.MemoryV2().size()).isEqualTo(40);
    assertThat(new NvmlLibrary.Utilization().size()).isEqualTo(8);
    assertThat(new NvmlLibrary.EventData().size()).isEqualTo(32);
  }

  @Test
  void fieldOffsetsMatchNvml() {
    NvmlLibrary.PciInfo pci = new NvmlLibrary.PciInfo();
    pci.domain = 0x11223344;
    pci.busId[0] = 'X';
    pci.write();
    assertThat(pci.getPointer().getInt(16)).isEqualTo(0x11223344);
    assertThat(pci.getPointer().getByte(36)).isEqualTo((byte) 'X');

    NvmlLibrary.MemoryV2 memory = new NvmlLibrary.MemoryV2();
    memory.total = 42;
    memory.write();
    assertThat(memory.getPointer().getLong(8)).isEqualTo(42);

    NvmlLibrary.EventData event = new NvmlLibrary.EventData();
    event.gpuInstanceId = -1;
    event.write();
    assertThat(event.getPointer().getInt(24)).isEqualTo(-1);
    assertThat(event.getPointer().getInt(28)).isZero();
  }

  @Test
  void memoryV2CarriesItsStructVersion() {
    assertThat(new NvmlLibrary.MemoryV2().version).isEqualTo((2 << 24) | 40);
  }
}
