package io.acceld.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PciAddressesTest {
  @Test
  void nvmlAndSysfsFormsNormaliseToTheSameAddress() {
    assertThat(PciAddresses.normalise("00000000:3B:00.0")).contains("0000:3b:00.0");
    assertThat(PciAddresses.normalise("0000:3b:00.0")).contains("0000:3b:00.0");
    assertThat(PciAddresses.normalise("3b:00.0")).contains("0000:3b:00.0");
    assertThat(PciAddresses.normalise("0001:3B:1F.7")).contains("0001:3b:1f.7");
  }

  @Test
  void rejectsWhatIsNotAnAddress() {
    assertThat(PciAddresses.normalise("GPU-1234")).isEmpty();
    assertThat(PciAddresses.normalise("0000:3b:00.8")).isEmpty();
    assertThat(PciAddresses.normalise("100000000:3b:00.0")).isEmpty();
    assertThat(PciAddresses.normalise(null)).isEmpty();
  }
}
