package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The JNA structures must match NVML's C layouts byte for byte (reference §3.3, x86-64). */
class NvmlLibraryLayoutTest {
  @Test
  void structureSizesMatchNvml() {
    assertThat(new NvmlLibrary.PciInfo().size()).isEqualTo(68);
    assertThat(new NvmlLibrary.Memory().size()).isEqualTo(24);
    assertThat(new NvmlLibrary.MemoryV2().size()).isEqualTo(40);
    assertThat(new NvmlLibrary.Utilization().size()).isEqualTo(8);
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
  }

  @Test
  void eventDataWordsDecodeAsNvmlLaysTheStructOut() {
    // nvmlEventData_t written field by field at its C offsets, read back as the four words the
    // wait binding passes.
    try (Memory c = new Memory(32)) {
      c.setLong(0, 0x7f00_1234_5678L); // device
      c.setLong(8, NvmlEventType.XID_CRITICAL_ERROR); // eventType
      c.setLong(16, 79); // eventData
      c.setInt(24, -1); // gpuInstanceId
      c.setInt(28, 5); // computeInstanceId
      long[] words = c.getLongArray(0, Nvml.EVENT_DATA_WORDS);
      NvmlDevice device = new NvmlDevice(new Pointer(words[0]));

      NvmlEvent event = Nvml.event(words, device, Optional.empty());

      assertThat(Pointer.nativeValue(device.handle())).isEqualTo(0x7f00_1234_5678L);
      assertThat(event.isXid()).isTrue();
      assertThat(event.eventData()).isEqualTo(79);
      assertThat(event.gpuInstanceId()).isEqualTo(-1);
      assertThat(event.computeInstanceId()).isEqualTo(5);
    }
  }

  @Test
  void memoryV2CarriesItsStructVersion() {
    assertThat(new NvmlLibrary.MemoryV2().version).isEqualTo((2 << 24) | 40);
  }
}
