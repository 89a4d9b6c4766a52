package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.MesosIsolation;
import io.acceld.simulate.FakeNodeTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every kind of fence must do, with real cgroups, real processes and real device nodes made
 * with mknod. The fake accelerators use majors no driver is loaded for (see /proc/devices), so an
 * open that the fence lets through fails with ENXIO ("No such device or address") and one it denies
 * with EPERM ("Operation not permitted").
 */
abstract class ContainmentContract {
  static final String ENXIO = "No such device or address";
  static final String EPERM = "Operation not permitted";
  static final Limits LIMITS = new Limits(64L << 20, 0.5, false);

  @TempDir Path temp;
  final CgroupFixture cgroups = new CgroupFixture();
  final List<Fence> fences = new ArrayList<>();
  Containment containment;
  Path dev;

  /** The containment under test, over {@code settings}. */
  abstract Containment containment(ContainmentSettings settings);

  abstract Set<MesosIsolation> isolation();

  /** The CONTAINMENT_TESTS_LACK name of what these tests need. */
  abstract String capability();

  ContainmentSettings settings(boolean switchUser) {
    return new ContainmentSettings(
        isolation(),
        switchUser,
        false,
        CgroupFixture.CGROUP_ROOT,
        dev,
        ContainmentSettings.DEFAULT_SETPRIV,
        cgroups.parent);
  }

  @BeforeEach
  void fence() throws IOException {
    FakeNodeTree tree = new FakeNodeTree(temp.resolve("node"));
    tree.charDevice("nvidia0", 195, 0)
        .charDevice("nvidia1", 195, 1)
        .charDevice("nvidiactl", 195, 255)
        .charDevice("nvidia-uvm", 237, 0)
        .charDevice("nvidia-uvm-tools", 237, 1)
        .charDevice("nvidia-caps/nvidia-cap1", 238, 1)
        .charDevice("nvidia-caps/nvidia-cap2", 238, 2)
        .charDevice("kfd", 239, 0)
        .charDevice("dri/renderD128", 226, 128);
    dev = tree.devRoot();
    containment = containment(settings(false));
    CgroupFixture.require(containment.preflight(), capability());
    assertThat(DeviceNode.isCharDevice(dev.resolve("nvidia1")))
        .as("mknod made a real character device (needs root)")
        .isTrue();
  }

  @AfterEach
  void nothingLeft() throws IOException {
    cgroups.destroyAndCheck(fences);
  }

  Fence create(String id, List<DeviceNode> allowed) throws IOException {
    Fence fence = containment.create(id, LIMITS, allowed, Optional.empty());
    fences.add(fence);
    return fence;
  }

  String open(Fence fence, String node) throws Exception {
    return Probes.open(fence, dev.resolve(node));
  }

  /**
   * Two agents on one cgroup parent would remove each other's containers as ended at recovery: the
   * second is refused while the first holds the parent, in words naming the parent and the setting
   * to change, and takes it once the first let go (an agent closing, or dying).
   */
  @Test
  void aSecondAgentOnTheSameParentIsRefusedUntilTheFirstLetsGo() throws Exception {
    Containment second = containment(settings(false));
    try (ParentLock held = containment.lockParent().orElseThrow()) {
      assertThatThrownBy(second::lockParent)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("the Mesos cgroup parent '" + cgroups.parent + "'")
          .hasMessageContaining("is held by another acceld on this node")
          .hasMessageContaining("--mesos-cgroup-parent");
    }
    try (ParentLock taken = second.lockParent().orElseThrow()) {
      assertThat(taken.dir()).endsWith(Path.of(cgroups.parent)).isDirectory();
    }
  }

  @Test
  void aTaskOpensItsOwnAcceleratorsOnly() throws Exception {
    Fence fence = create("nvidia-task", List.of(DeviceNode.of(dev.resolve("nvidia0"))));

    // control: unfenced, every fake node reaches the (absent) driver
    assertThat(
            Probes.open(
                Containment.create(settingsNone()).create("x", LIMITS, List.of(), Optional.empty()),
                dev.resolve("nvidia1")))
        .contains(ENXIO);

    assertThat(open(fence, "nvidia0")).contains(ENXIO);
    assertThat(open(fence, "nvidiactl")).contains(ENXIO);
    assertThat(open(fence, "nvidia-uvm")).contains(ENXIO);
    assertThat(open(fence, "nvidia-uvm-tools")).contains(ENXIO);
    assertThat(open(fence, "nvidia1")).contains(EPERM);
    assertThat(open(fence, "nvidia-caps/nvidia-cap1")).contains(EPERM);
    assertThat(open(fence, "kfd")).contains(EPERM);
    assertThat(open(fence, "dri/renderD128")).contains(EPERM);
    assertThat(Probes.open(fence, Path.of("/dev/null"))).isEqualTo("opened");
  }

  /** What else a fence's device update must leave behind, beyond what a process can open. */
  void afterDeviceUpdate(Fence fence) throws Exception {}

  @Test
  void theDeviceFenceWidensForANewTasksGpuAndNarrowsWhenItIsReleased() throws Exception {
    DeviceNode a = DeviceNode.of(dev.resolve("nvidia0"));
    DeviceNode b = DeviceNode.of(dev.resolve("nvidia1"));
    Fence fence = create("widened", List.of(a));
    assertThat(open(fence, "nvidia1")).contains(EPERM);

    // a second task with GPU B launched into the container
    fence.updateDevices(containment.denial(List.of(a, b)));

    assertThat(open(fence, "nvidia1")).contains(ENXIO);
    assertThat(open(fence, "nvidia0")).contains(ENXIO);
    assertThat(open(fence, "nvidiactl")).contains(ENXIO);
    assertThat(open(fence, "kfd")).contains(EPERM);
    assertThat(fence.denied()).extracting(DeviceNode::number).doesNotContain("195:0", "195:1");
    assertThat(fence.describe().deniedDevices())
        .contains("239:0", "226:128")
        .doesNotContain("195:0", "195:1");
    afterDeviceUpdate(fence);

    // that task ended: B is no task's any more
    fence.updateDevices(containment.denial(List.of(a)));

    assertThat(open(fence, "nvidia1")).contains(EPERM);
    assertThat(open(fence, "nvidia0")).contains(ENXIO);
    assertThat(open(fence, "nvidiactl")).contains(ENXIO);
    assertThat(fence.describe().deniedDevices()).contains("195:1").doesNotContain("195:0");
    afterDeviceUpdate(fence);
  }

  @Test
  void aFenceReattachedByAFreshContainmentWidensAndNarrowsToo() throws Exception {
    DeviceNode a = DeviceNode.of(dev.resolve("nvidia0"));
    DeviceNode b = DeviceNode.of(dev.resolve("nvidia1"));
    Fence made = create("reattached", List.of(a));
    // as after an agent restart: another instance, knowing only what the checkpoint keeps
    Containment restarted = containment(settings(false));
    Fence fence =
        restarted.reattach("reattached", LIMITS, Optional.of(made.denied()), Optional.empty());
    fences.add(fence);

    fence.updateDevices(restarted.denial(List.of(a, b)));

    assertThat(open(fence, "nvidia1")).contains(ENXIO);
    assertThat(open(fence, "nvidia0")).contains(ENXIO);
    assertThat(fence.describe().deniedDevices()).doesNotContain("195:1");
    afterDeviceUpdate(fence);

    fence.updateDevices(restarted.denial(List.of(a)));

    assertThat(open(fence, "nvidia1")).contains(EPERM);
    assertThat(open(fence, "nvidia0")).contains(ENXIO);
    afterDeviceUpdate(fence);
  }

  @Test
  void aMigTaskGetsItsCapsAndAnAmdTaskGetsKfd() throws Exception {
    Fence mig =
        create(
            "mig-task",
            List.of(
                DeviceNode.of(dev.resolve("nvidia1")),
                DeviceNode.of(dev.resolve("nvidia-caps/nvidia-cap2"))));
    Fence amd = create("amd-task", List.of(DeviceNode.of(dev.resolve("dri/renderD128"))));

    assertThat(open(mig, "nvidia-caps/nvidia-cap2")).contains(ENXIO);
    assertThat(open(mig, "nvidia-caps/nvidia-cap1")).contains(EPERM);
    assertThat(open(mig, "nvidia0")).contains(EPERM);
    assertThat(open(amd, "dri/renderD128")).contains(ENXIO);
    assertThat(open(amd, "kfd")).contains(ENXIO);
    assertThat(open(amd, "nvidiactl")).contains(EPERM);
  }

  @Test
  void killAllKillsADoubleForkedChildThatIgnoresSigterm() throws Exception {
    Fence fence = create("forker", List.of());
    Probes.Result r =
        Probes.run(
            fence,
            "/bin/sh",
            "-c",
            "sh -c 'trap \"\" TERM; exec sleep 600' </dev/null >/dev/null 2>&1 & echo $!");
    assertThat(r.exit()).as(r.err()).isZero();
    long orphan = Long.parseLong(r.out().strip());
    assertThat(Probes.ended(orphan)).as("the orphan runs after its parent ended").isFalse();

    assertThat(fence.killAll(Duration.ofSeconds(5))).isTrue();

    assertThat(Probes.ended(orphan)).isTrue();
    fence.destroy();
    assertThat(containment.containers()).doesNotContain("forker");
  }

  @Test
  void aProcessRunsAsTheTaskUser() throws Exception {
    containment = containment(settings(true));
    UserIdentity nobody = containment.taskUser(Optional.empty(), "nobody").orElseThrow();
    Fence fence = containment.create("as-nobody", LIMITS, List.of(), Optional.of(nobody));
    fences.add(fence);

    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "id -u; id -g; id -G");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().strip().split("\n"))
        .containsExactly(
            String.valueOf(nobody.uid()),
            String.valueOf(nobody.gid()),
            nobody.groups().stream()
                .map(String::valueOf)
                .reduce((a, b) -> a + " " + b)
                .orElseThrow());
    assertThat(nobody.uid()).isNotZero();
  }

  @Test
  void killAllReachesChildCgroupsARootTaskMade() throws Exception {
    Fence fence = create("nested", List.of());
    Path own = Path.of(fence.describe().cgroups().get(0)); // the freezer's on v1
    Process p =
        Probes.start(
            fence,
            "/bin/sh",
            "-c",
            "mkdir \"$1/sub\" && echo $$ > \"$1/sub/cgroup.procs\" && exec sleep 600",
            "nest",
            own.toString());
    assertThat(
            CgroupFiles.await(
                Duration.ofSeconds(10),
                () -> CgroupFiles.pids(own.resolve("sub/cgroup.procs")).contains((int) p.pid())))
        .isTrue();

    assertThat(fence.killAll(Duration.ofSeconds(5))).isTrue();
    assertThat(p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    fence.destroy();
    assertThat(own).doesNotExist();
  }

  @Test
  void aTaskUserCannotLeaveItsCgroup() throws Exception {
    containment = containment(settings(true));
    UserIdentity nobody = containment.taskUser(Optional.empty(), "nobody").orElseThrow();
    Fence fence = containment.create("stays", LIMITS, List.of(), Optional.of(nobody));
    fences.add(fence);
    Path own = Path.of(fence.describe().cgroups().get(0));

    Probes.Result r =
        Probes.run(
            fence,
            "/bin/sh",
            "-c",
            "echo $$ > \"$1\" && echo left",
            "escape",
            own.getParent().resolve("cgroup.procs").toString());

    assertThat(r.out()).doesNotContain("left");
    assertThat(r.err()).contains("Permission denied");
  }

  @Test
  void recoverRemovesEndedContainersAndKeepsLiveOnes() throws Exception {
    Fence live = create("live", List.of());
    Fence ended = containment.create("ended", LIMITS, List.of(), Optional.empty());
    Process keeps = Probes.start(live, "sleep", "600");
    Process leftover = Probes.start(ended, "sleep", "600");
    Probes.awaitJoined(live, keeps);
    Probes.awaitJoined(ended, leftover);

    Recovery recovery = containment(settings(false)).recover(Set.of("live", "gone-before"));

    assertThat(recovery.kept()).containsExactly("live");
    assertThat(recovery.removed()).containsExactly("ended");
    assertThat(recovery.failed()).isEmpty();
    assertThat(containment.containers()).containsExactly("live");
    assertThat(leftover.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(keeps.isAlive()).isTrue();
    assertThat(live.describe().cgroups()).allSatisfy(c -> assertThat(Path.of(c)).isDirectory());
    assertThat(ended.describe().cgroups()).allSatisfy(c -> assertThat(Path.of(c)).doesNotExist());
  }

  @Test
  void aSecondCgroupForOneContainerIsRefusedAndBadIdsToo() throws Exception {
    create("twice", List.of());
    assertThatThrownBy(() -> containment.create("twice", LIMITS, List.of(), Optional.empty()))
        .hasMessageContaining("already has a cgroup");
    assertThatThrownBy(() -> containment.create("../escape", LIMITS, List.of(), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("../escape");
  }

  @Test
  void aDescriptionForState() throws Exception {
    Fence fence = create("described", List.of(DeviceNode.of(dev.resolve("nvidia0"))));
    FenceDescription d = fence.describe();
    assertThat(d.containerId()).isEqualTo("described");
    assertThat(d.cgroups())
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c).endsWith(cgroups.parent + "/described"));
    assertThat(d.deniedDevices()).contains("195:1").doesNotContain("195:0", "195:255");
    assertThat(d.limits()).isEqualTo(LIMITS);
    assertThat(Files.isDirectory(Path.of(d.cgroups().get(0)))).isTrue();
  }

  ContainmentSettings settingsNone() {
    return new ContainmentSettings(
        Set.of(),
        false,
        true,
        CgroupFixture.CGROUP_ROOT,
        dev,
        ContainmentSettings.DEFAULT_SETPRIV,
        cgroups.parent);
  }
}
