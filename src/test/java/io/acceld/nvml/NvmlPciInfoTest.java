package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NvmlPciInfoTest {
  @Test
  void sysfsAddressIsLowerCaseWithFourDigitDomain() {
    NvmlPciInfo pci = new NvmlPciInfo(0, 0x3b, 0, 0x20b010de, 0x134f10de, "00000000:3B:00.0");
    assertThat(pci.sysfsAddress()).isEqualTo("0000:3b:00.0");
    assertThat(NvmlPciInfo.sysfsAddress(0x10, 0xdb, 0x1f)).isEqualTo("0010:db:1f.0");
  }

  @Test
  void pciDeviceIdSplitsIntoDeviceAndVendor() {
    NvmlPciInfo pci = new NvmlPciInfo(0, 0x18, 0, 0x233010de, 0, "00000000:18:00.0");
    assertThat(pci.vendorId()).isEqualTo(0x10de);
    assertThat(pci.deviceId()).isEqualTo(0x2330);
  }
}
