package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.MesosIsolation;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings' parsing, the limits' conversions and the device program's encoding. */
class ValuesTest {
  @Test
  void isolationParses() {
    assertThat(MesosIsolation.parse(MesosIsolation.DEFAULT))
        .isEqualTo(EnumSet.allOf(MesosIsolation.class));
    assertThat(MesosIsolation.parse(" none ")).isEmpty();
    assertThat(MesosIsolation.parse("memory")).containsExactly(MesosIsolation.MEMORY);
    assertThatThrownBy(() -> MesosIsolation.parse("devices,gpu"))
        .hasMessageContaining("'gpu' is not an isolator");
    assertThatThrownBy(() -> MesosIsolation.parse("none,cpu")).hasMessageContaining("none cannot");
    assertThatThrownBy(() -> MesosIsolation.parse("")).hasMessageContaining("--mesos-isolation");
    assertThat(MesosIsolation.format(EnumSet.noneOf(MesosIsolation.class))).isEqualTo("none");
  }

  @Test
  void cpuSharesAndRuncsWeight() {
    assertThat(new Limits(64L << 20, 1, false).cpuShares()).isEqualTo(1024);
    assertThat(new Limits(64L << 20, 1, false).cpuWeight()).isEqualTo(39);
    assertThat(new Limits(64L << 20, 0.001, false).cpuShares()).isEqualTo(2);
    assertThat(new Limits(64L << 20, 0.001, false).cpuWeight()).isEqualTo(1);
    assertThat(new Limits(64L << 20, 256, false).cpuWeight()).isEqualTo(10000);
    assertThat(new Limits(64L << 20, 0.25, true).cpuQuotaMicros()).isEqualTo(25_000);
    assertThat(new Limits(64L << 20, 0.001, true).cpuQuotaMicros()).isEqualTo(1_000);
  }

  @Test
  void badLimitsAreRefused() {
    assertThatThrownBy(() -> new Limits(1024, 1, false)).hasMessageContaining("memory limit");
    assertThatThrownBy(() -> new Limits(64L << 20, 0, false)).hasMessageContaining("cpus");
    assertThatThrownBy(() -> new Limits(64L << 20, Double.NaN, false)).hasMessageContaining("cpus");
  }

  @Test
  void theDeviceProgramDeniesEachNodeByTypeMajorAndMinor() {
    byte[] code = DeviceProgram.denying(List.of(new DeviceNode(Path.of("n"), 195, 7)));
    ByteBuffer b = ByteBuffer.wrap(code).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(code).hasSize(8 * (4 + 5 + 2));
    // insn 5: if r3 != 195 goto +3
    assertThat(b.get(5 * 8)).isEqualTo((byte) 0x55);
    assertThat(b.get(5 * 8 + 1)).isEqualTo((byte) 3);
    assertThat(b.getShort(5 * 8 + 2)).isEqualTo((short) 3);
    assertThat(b.getInt(5 * 8 + 4)).isEqualTo(195);
    // insn 7: r0 = 0 (deny); the last two: r0 = 1, exit
    assertThat(b.getInt(7 * 8 + 4)).isZero();
    assertThat(b.get(9 * 8)).isEqualTo((byte) 0xb7);
    assertThat(b.getInt(9 * 8 + 4)).isEqualTo(1);
    assertThat(b.get(10 * 8)).isEqualTo((byte) 0x95);
  }

  @Test
  void deviceNumbersDecodeAsGlibcDoes() {
    // glibc's makedev: minor's low byte, major's low 12 bits, minor's upper bits, major's upper
    long major = 0x1234;
    long minor = 0xabc45;
    long dev =
        (minor & 0xff)
            | ((major & 0xfff) << 8)
            | ((minor & ~0xffL) << 12)
            | ((major & ~0xfffL) << 32);
    assertThat(DeviceNode.major(dev)).isEqualTo(0x1234);
    assertThat(DeviceNode.minor(dev)).isEqualTo(0xabc45);
    assertThatThrownBy(() -> new DeviceNode(Path.of("x"), 5000, 0)).hasMessageContaining("5000:0");
  }

  @Test
  void settingsRefuseAParentThatEscapes() {
    assertThatThrownBy(
            () ->
                new ContainmentSettings(
                    EnumSet.allOf(MesosIsolation.class),
                    true,
                    false,
                    Path.of("/sys/fs/cgroup"),
                    Path.of("/dev"),
                    ContainmentSettings.DEFAULT_SETPRIV,
                    "../etc"))
        .hasMessageContaining("'../etc'");
  }
}
