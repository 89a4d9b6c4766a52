package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The byte and word layouts of {@link NvmlWords} must match NVML's C layouts byte for byte
 * (reference §3.3, x86-64): each struct is written field by field at its C offsets into native
 * memory and read back as the words the binding passes.
 */
class NvmlLibraryLayoutTest {
  @Test
  void structureSizesMatchNvml() {
    assertThat(NvmlWords.PCI_INFO_BYTES).isEqualTo(68);
    assertThat(NvmlWords.MEMORY_WORDS * 8).isEqualTo(24);
    assertThat(NvmlWords.MEMORY_V2_WORDS * 8).isEqualTo(40);
    assertThat(NvmlWords.UTILIZATION_INTS * 4).isEqualTo(8);
    assertThat(NvmlWords.FIELD_VALUE_WORDS * 8).isEqualTo(40);
    assertThat(NvmlWords.EVENT_DATA_WORDS * 8).isEqualTo(32);
  }

  @Test
  void pciInfoDecodesAtItsCOffsets() {
    try (Memory c = new Memory(NvmlWords.PCI_INFO_BYTES)) {
      c.clear();
      c.setString(0, "0000:3B:00.0", "US-ASCII"); // busIdLegacy
      c.setInt(16, 0x10000); // domain
      c.setInt(20, 0x3b); // bus
      c.setInt(24, 0x1f); // device
      c.setInt(28, 0x233010de); // pciDeviceId
      c.setInt(32, 0x16c110de); // pciSubSystemId
      c.setString(36, "00010000:3B:1F.0", "US-ASCII"); // busId, fills 16 of its 32 bytes

      NvmlPciInfo pci = NvmlWords.pciInfo(c.getByteArray(0, NvmlWords.PCI_INFO_BYTES));

      assertThat(pci)
          .isEqualTo(
              new NvmlPciInfo(0x10000, 0x3b, 0x1f, 0x233010de, 0x16c110de, "00010000:3B:1F.0"));
    }
  }

  @Test
  void aPciBusIdWithoutItsTerminatorStopsAtTheStructsEnd() {
    byte[] bytes = new byte[NvmlWords.PCI_INFO_BYTES];
    java.util.Arrays.fill(bytes, 36, bytes.length, (byte) 'A');

    assertThat(NvmlWords.pciInfo(bytes).busId()).hasSize(32);
  }

  @Test
  void memoryV2RequestCarriesItsVersionAtOffsetZeroAndDecodesAtItsOffsets() {
    try (Memory c = new Memory(40)) {
      c.write(0, NvmlWords.memoryV2Request(), 0, NvmlWords.MEMORY_V2_WORDS);
      assertThat(c.getInt(0)).isEqualTo((2 << 24) | 40);
      assertThat(c.getInt(4)).isZero();

      c.setLong(8, 80L << 30); // total
      c.setLong(16, 512L << 20); // reserved
      c.setLong(24, 70L << 30); // free
      c.setLong(32, 10L << 30); // used

      NvmlMemoryInfo m = NvmlWords.memoryV2(c.getLongArray(0, NvmlWords.MEMORY_V2_WORDS));

      assertThat(m).isEqualTo(new NvmlMemoryInfo(80L << 30, 512L << 20, 70L << 30, 10L << 30));
    }
  }

  @Test
  void memoryV1DecodesAtItsOffsetsWithoutAReservation() {
    try (Memory c = new Memory(24)) {
      c.setLong(0, 300);
      c.setLong(8, 200);
      c.setLong(16, 100);

      NvmlMemoryInfo m = NvmlWords.memory(c.getLongArray(0, NvmlWords.MEMORY_WORDS));

      assertThat(m).isEqualTo(new NvmlMemoryInfo(300, -1, 200, 100));
    }
  }

  @Test
  void fieldValueEntriesAreFortyBytesApartAndDecodeByTheirOwnType() {
    List<NvmlField> asked = List.of(NvmlField.values()[0], NvmlField.values()[1]);
    try (Memory c = new Memory(80)) {
      c.write(0, NvmlWords.fieldValuesRequest(asked), 0, 2 * NvmlWords.FIELD_VALUE_WORDS);
      assertThat(c.getInt(0)).isEqualTo(asked.get(0).id);
      assertThat(c.getInt(40)).isEqualTo(asked.get(1).id);
      assertThat(c.getInt(4)).isZero(); // scopeId
      // entry 0: unsigned int 4,000,000,000 (above Integer.MAX_VALUE), success
      c.setInt(24, 1);
      c.setInt(28, NvmlReturn.SUCCESS);
      c.setInt(32, (int) 4_000_000_000L);
      c.setInt(36, 0x7fff_ffff); // the union's unused half must not leak into the value
      // entry 1: double, but its own call failed (NOT_SUPPORTED)
      c.setInt(40 + 24, 0);
      c.setInt(40 + 28, NvmlReturn.ERROR_NOT_SUPPORTED);
      c.setDouble(40 + 32, 21.5);

      long[] words = c.getLongArray(0, 2 * NvmlWords.FIELD_VALUE_WORDS);

      assertThat(NvmlWords.fieldReturn(words, 0)).isEqualTo(NvmlReturn.SUCCESS);
      assertThat(NvmlWords.fieldValue(words, 0)).contains(4_000_000_000.0);
      assertThat(NvmlWords.fieldReturn(words, 1)).isEqualTo(NvmlReturn.ERROR_NOT_SUPPORTED);
      assertThat(NvmlWords.fieldValue(words, 1)).contains(21.5);
    }
  }

  @Test
  void fieldValueTypesDecodeSignedUnsignedAndUnknown() {
    long[] words = new long[NvmlWords.FIELD_VALUE_WORDS];
    words[3] = NvmlWords.word(5, NvmlReturn.SUCCESS); // signed int
    words[4] = NvmlWords.word(-7, 0);
    assertThat(NvmlWords.fieldValue(words, 0)).contains(-7.0);
    words[3] = NvmlWords.word(3, NvmlReturn.SUCCESS); // unsigned long long
    words[4] = -1L;
    assertThat(NvmlWords.fieldValue(words, 0)).contains(18446744073709551615.0);
    words[3] = NvmlWords.word(4, NvmlReturn.SUCCESS); // signed long long
    assertThat(NvmlWords.fieldValue(words, 0)).contains(-1.0);
    words[3] = NvmlWords.word(99, NvmlReturn.SUCCESS); // a type newer than the binding
    assertThat(NvmlWords.fieldValue(words, 0)).isEmpty();
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
      long[] words = c.getLongArray(0, NvmlWords.EVENT_DATA_WORDS);
      NvmlDevice device = new NvmlDevice(new Pointer(words[0]));

      NvmlEvent event = NvmlWords.event(words, device, Optional.empty());

      assertThat(Pointer.nativeValue(device.handle())).isEqualTo(0x7f00_1234_5678L);
      assertThat(event.isXid()).isTrue();
      assertThat(event.eventData()).isEqualTo(79);
      assertThat(event.gpuInstanceId()).isEqualTo(-1);
      assertThat(event.computeInstanceId()).isEqualTo(5);
    }
  }

  @Test
  void migAttributesDecodeAtTheirCOffsets() {
    try (Memory c = new Memory(40)) {
      int[] values = {16, 1, 2, 3, 4, 5, 1, 1}; // mp, ce, dec, enc, jpeg, ofa, gi slices, ci slices
      for (int i = 0; i < values.length; i++) {
        c.setInt(4L * i, values[i]);
      }
      c.setLong(32, 9856); // memorySizeMB

      NvmlMigAttributes a = NvmlWords.attributes(c.getLongArray(0, NvmlWords.ATTRIBUTES_WORDS));

      assertThat(NvmlWords.ATTRIBUTES_WORDS * 8).isEqualTo(40);
      assertThat(a).isEqualTo(new NvmlMigAttributes(16, 1, 2, 3, 4, 5, 1, 1, 9856));
    }
  }

  @Test
  void gpuInstanceProfileInfoDecodesItsIdSlicesAndMemoryAtTheirCOffsets() {
    try (Memory c = new Memory(48)) {
      c.clear();
      c.setInt(0, 19); // id: the driver's, not the index
      c.setInt(4, 1); // isP2pSupported
      c.setInt(8, 1); // sliceCount
      c.setInt(12, 7); // instanceCount
      c.setInt(16, 16); // multiprocessorCount
      c.setLong(40, 9856); // memorySizeMB

      NvmlGpuInstanceProfile p =
          NvmlWords.gpuInstanceProfile(0, c.getLongArray(0, NvmlWords.GPU_INSTANCE_PROFILE_WORDS));

      assertThat(NvmlWords.GPU_INSTANCE_PROFILE_WORDS * 8).isEqualTo(48);
      assertThat(p).isEqualTo(new NvmlGpuInstanceProfile(0, 19, 1, 7, 16, 9856));
    }
  }

  @Test
  void gpuInstanceInfoGivesItsProfileIdAtOffsetTwelve() {
    try (Memory c = new Memory(24)) {
      c.clear();
      c.setLong(0, 0x7f00deadbeefL); // device
      c.setInt(8, 11); // id
      c.setInt(12, 9); // profileId
      c.setInt(16, 4); // placement.start
      c.setInt(20, 3); // placement.size

      assertThat(NvmlWords.GPU_INSTANCE_INFO_WORDS * 8).isEqualTo(24);
      assertThat(
              NvmlWords.gpuInstanceProfileId(c.getLongArray(0, NvmlWords.GPU_INSTANCE_INFO_WORDS)))
          .isEqualTo(9);
    }
  }
}
