package io.acceld.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Device numbers and the /proc/devices table doctor judges nodes by. */
class NodeFileTest {
  /** glibc's makedev(), as the kernel's new encoding lays the bits out. */
  private static long makedev(long major, long minor) {
    return ((major & 0xfffff000L) << 32)
        | ((major & 0xfffL) << 8)
        | ((minor & 0xffffff00L) << 12)
        | (minor & 0xffL);
  }

  @Test
  void majorAndMinorDecodeEveryPartOfTheDeviceNumber() {
    int[][] cases = {{195, 0}, {195, 255}, {226, 128}, {511, 1}, {4095, 1048575}, {4096, 256}};
    for (int[] c : cases) {
      long dev = makedev(c[0], c[1]);
      assertThat(NodeFile.major(dev)).as("major of %s", dev).isEqualTo(c[0]);
      assertThat(NodeFile.minor(dev)).as("minor of %s", dev).isEqualTo(c[1]);
    }
  }

  @Test
  void procDevicesGivesTheCharacterMajorsOnly() {
    Map<String, Integer> majors =
        DeviceNumbers.parse(
            "Character devices:\n  1 mem\n195 nvidia-frontend\n226 drm\n511 nvidia-uvm\n\n"
                + "Block devices:\n  8 sd\n226 drm-block\n");

    assertThat(majors)
        .containsEntry("nvidia-frontend", 195)
        .containsEntry("drm", 226)
        .containsEntry("nvidia-uvm", 511)
        .doesNotContainKeys("sd", "drm-block");
  }

  @Test
  void theModeReadsAsLsShowsIt() {
    assertThat(new NodeFile(NodeFile.Type.CHARACTER_DEVICE, 195, 0, 0666).modeString())
        .isEqualTo("crw-rw-rw-");
    assertThat(new NodeFile(NodeFile.Type.CHARACTER_DEVICE, 195, 0, 0).ownerCanReadAndWrite())
        .isFalse();
  }
}
