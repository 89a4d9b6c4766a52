package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeviceClassifierTest {
  private final DeviceClassifier builtIn = new DeviceClassifier(List.of());

  static PciDevice device(int vendor, int deviceId, int classCode, String driver) {
    return new PciDevice(
        "0000:3b:00.0",
        vendor,
        deviceId,
        classCode,
        0,
        0,
        0,
        "",
        Optional.ofNullable(driver),
        OptionalInt.empty(),
        Optional.empty(),
        OptionalInt.empty(),
        List.of(),
        List.of(),
        Optional.empty(),
        List.of("pci0000:3a", "0000:3b:00.0"),
        AmdgpuAttributes.NONE);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "NVIDIA 3D controller,        0x10de, 0x2330, 0x030200, nvidia,   nvidia.com/gpu",
    "NVIDIA VGA (consumer),       0x10de, 0x2684, 0x030000, nvidia,   nvidia.com/gpu",
    "NVIDIA unbound,              0x10de, 0x2330, 0x030200, ,         nvidia.com/gpu",
    "NVIDIA HD audio function,    0x10de, 0x22ba, 0x040300, snd_hda,  ",
    "NVIDIA NVSwitch,             0x10de, 0x22a3, 0x068000, nvswitch, ",
    "AMD VGA,                     0x1002, 0x744c, 0x030000, amdgpu,   amd.com/gpu",
    "AMD display other (MI210),   0x1002, 0x740f, 0x038000, amdgpu,   amd.com/gpu",
    "AMD accelerator (MI300X),    0x1002, 0x74a1, 0x120000, amdgpu,   amd.com/gpu",
    "AMD 3D controller,           0x1002, 0x1234, 0x030200, amdgpu,   ",
    "AMD HD audio,                0x1002, 0xab28, 0x040300, snd_hda,  ",
    "Intel GPU on i915,           0x8086, 0x56c0, 0x038000, i915,     gpu.intel.com/i915",
    "Intel GPU on xe,             0x8086, 0xe20b, 0x030000, xe,       gpu.intel.com/xe",
    "Intel GPU unbound,           0x8086, 0x56c0, 0x038000, ,         gpu.intel.com/i915",
    "Intel root port,             0x8086, 0x352a, 0x060400, pcieport, ",
    "Intel SATA,                  0x8086, 0xa182, 0x010601, ahci,     ",
    "Habana Gaudi2,               0x1da3, 0x1020, 0x120000, habanalabs, habana.ai/gaudi",
    "ASPEED BMC VGA,              0x1a03, 0x2000, 0x030000, ast,      ",
    "Mellanox NIC,                0x15b3, 0x1021, 0x020700, mlx5_core, ",
    "Broadcom NIC,                0x14e4, 0x16d7, 0x020000, bnxt_en,  ",
  })
  void builtInTable(
      String what, String vendor, String deviceId, String cls, String driver, String expected) {
    PciDevice d =
        device(Integer.decode(vendor), Integer.decode(deviceId), Integer.decode(cls), driver);
    assertThat(builtIn.classify(d)).isEqualTo(Optional.ofNullable(expected));
  }

  @Test
  void operatorRulesComeBeforeTheBuiltInOnes() {
    ClassificationRule h100 =
        new ClassificationRule(
            OptionalInt.of(0x10de),
            OptionalInt.of(0x2330),
            Optional.empty(),
            Optional.empty(),
            "example.com/h100");
    DeviceClassifier classifier = new DeviceClassifier(List.of(h100));

    assertThat(classifier.classify(device(0x10de, 0x2330, 0x030200, "nvidia")))
        .contains("example.com/h100");
    assertThat(classifier.classify(device(0x10de, 0x20b0, 0x030200, "nvidia")))
        .contains("nvidia.com/gpu");
  }

  @Test
  void operatorRulesCanAdvertiseOtherVendors() {
    ClassificationRule neuron =
        new ClassificationRule(
            OptionalInt.of(0x1d0f),
            OptionalInt.empty(),
            Optional.of(ClassPattern.parse("0x08")),
            Optional.of("neuron"),
            "aws.amazon.com/neuron");
    DeviceClassifier classifier = new DeviceClassifier(List.of(neuron));

    assertThat(classifier.classify(device(0x1d0f, 0x7064, 0x088000, "neuron")))
        .contains("aws.amazon.com/neuron");
    assertThat(classifier.classify(device(0x1d0f, 0x7064, 0x088000, "vfio-pci"))).isEmpty();
  }

  @Test
  void aRuleMustNameAValidResourceAndMatchOnSomething() {
    assertThatThrownBy(
            () ->
                new ClassificationRule(
                    OptionalInt.of(1),
                    OptionalInt.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    "gpu"))
        .hasMessageContaining("<domain>/<name>");
    assertThatThrownBy(
            () ->
                new ClassificationRule(
                    OptionalInt.empty(),
                    OptionalInt.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    "example.com/gpu"))
        .hasMessageContaining("at least one");
  }

  @Test
  void classPatternsMatchBaseClassSubclassOrFullCode() {
    assertThat(ClassPattern.parse("0x03").matches(0x030200)).isTrue();
    assertThat(ClassPattern.parse("0x0302").matches(0x030200)).isTrue();
    assertThat(ClassPattern.parse("0x0300").matches(0x030200)).isFalse();
    assertThat(ClassPattern.parse("030200").matches(0x030200)).isTrue();
    assertThatThrownBy(() -> ClassPattern.parse("0x3"))
        .hasMessageContaining("2, 4 or 6 hex digits");
  }
}
