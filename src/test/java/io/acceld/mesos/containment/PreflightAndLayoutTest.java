package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Layout detection on file trees shaped like the kernel's mounts, and the preflight's answers. */
class PreflightAndLayoutTest {
  @TempDir Path temp;

  private static void touch(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "");
  }

  private ContainmentSettings settings(
      Path cgroupRoot, Set<MesosIsolation> isolation, Path setpriv) {
    return new ContainmentSettings(
        isolation, true, false, cgroupRoot, Path.of("/dev"), setpriv, "acceld/mesos");
  }

  @Test
  void detectsUnifiedLegacyAndHybrid() throws IOException {
    touch(temp.resolve("v2/cgroup.controllers"));
    assertThat(CgroupLayout.detect(temp.resolve("v2"))).isInstanceOf(CgroupLayout.Unified.class);

    for (String c : new String[] {"freezer", "devices", "memory"}) {
      touch(temp.resolve("v1/" + c + "/cgroup.procs"));
    }
    CgroupLayout.Legacy v1 = (CgroupLayout.Legacy) CgroupLayout.detect(temp.resolve("v1"));
    assertThat(v1.controllers()).containsOnlyKeys("freezer", "devices", "memory");
    assertThat(v1.unified()).isEmpty();

    touch(temp.resolve("v1/unified/cgroup.controllers"));
    assertThat(((CgroupLayout.Legacy) CgroupLayout.detect(temp.resolve("v1"))).unified())
        .contains(temp.resolve("v1/unified"));

    assertThatThrownBy(() -> CgroupLayout.detect(temp.resolve("empty")))
        .hasMessageContaining("no cgroup hierarchy under --cgroup-root");
  }

  @Test
  void thisNodeIsReady() throws IOException {
    // the defaults but a test parent: preflight creates the agent's parent cgroup
    CgroupFixture cgroups = new CgroupFixture();
    ContainmentSettings d = ContainmentSettings.defaults();
    try {
      Preflight p =
          Containment.create(
                  new ContainmentSettings(
                      d.isolation(),
                      d.switchUser(),
                      d.allowRootTasks(),
                      d.cgroupRoot(),
                      d.devRoot(),
                      d.setpriv(),
                      cgroups.parent))
              .preflight();
      CgroupFixture.require(p, "cgroup-v1");
      assertThat(p.message()).contains("ready");
    } finally {
      cgroups.assertNothingLeftAndRemove();
    }
  }

  @Test
  void noCgroupsNamesWhatIsMissingAndHowToTurnItOff() {
    Preflight p =
        Containment.create(
                settings(
                    temp, EnumSet.allOf(MesosIsolation.class), ContainmentSettings.DEFAULT_SETPRIV))
            .preflight();
    assertThat(p.ok()).isFalse();
    assertThat(p.message())
        .contains("no cgroup hierarchy under --cgroup-root " + temp)
        .contains("--mesos-isolation none");
  }

  @Test
  void aMissingControllerIsNamed() throws IOException {
    touch(temp.resolve("freezer/cgroup.procs"));
    touch(temp.resolve("devices/cgroup.procs"));
    Preflight p =
        Containment.create(
                settings(
                    temp, EnumSet.of(MesosIsolation.MEMORY), ContainmentSettings.DEFAULT_SETPRIV))
            .preflight();
    assertThat(p.missing()).singleElement().asString().contains("no cgroup v1 memory controller");
  }

  @Test
  void aMissingSetprivNamesTheSwitchUserSetting() {
    Preflight p =
        Containment.create(settings(temp, Set.of(), Path.of("/no/such/setpriv"))).preflight();
    assertThat(p.message()).contains("/no/such/setpriv").contains("--mesos-switch-user=false");
  }

  @Test
  void noIsolationAndNoSwitchNeedsNothing() {
    Preflight p =
        Containment.create(
                new ContainmentSettings(
                    Set.of(), false, false, temp, temp, Path.of("/none"), "acceld/mesos"))
            .preflight();
    assertThat(p.ok()).isTrue();
  }

  @Test
  void v2ControllersMissingAreNamed() throws IOException {
    Files.writeString(temp.resolve("cgroup.controllers"), "cpu io\n");
    Preflight p =
        Containment.create(
                settings(
                    temp,
                    EnumSet.of(MesosIsolation.MEMORY, MesosIsolation.CPU),
                    ContainmentSettings.DEFAULT_SETPRIV))
            .preflight();
    assertThat(p.message())
        .contains("cgroup v2 memory controller is not available")
        .contains("or run without it: --mesos-isolation cpu")
        .doesNotContain("v2 cpu controller");
  }
}
