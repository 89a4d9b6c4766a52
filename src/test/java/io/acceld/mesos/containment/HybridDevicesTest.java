package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MesosIsolation;
import io.acceld.simulate.FakeNodeTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a hybrid node the kernel checks both device fences on every open: the v1 devices cgroup's list
 * and the BPF programs of the process's cgroup2 directory; either one denying is EPERM. A process
 * in a v1 fence that allows only nvidia0 and a v2 fence that allows only nvidia1 can open neither.
 */
class HybridDevicesTest {
  @TempDir Path temp;
  final CgroupFixture cgroups = new CgroupFixture();
  final List<Fence> fences = new ArrayList<>();

  @AfterEach
  void nothingLeft() throws IOException {
    cgroups.destroyAndCheck(fences);
  }

  @Test
  void bothFencesApplyToOneOpen() throws Exception {
    Path unified = CgroupFixture.CGROUP_ROOT.resolve("unified");
    if (!Files.isRegularFile(unified.resolve("cgroup.controllers"))) {
      CgroupFixture.require(
          new Preflight("devices", List.of("not a hybrid node: no cgroup2 mount at " + unified)),
          "hybrid");
    }
    FakeNodeTree tree = new FakeNodeTree(temp);
    tree.charDevice("nvidia0", 195, 0).charDevice("nvidia1", 195, 1).charDevice("nvidia2", 195, 2);
    Path dev = tree.devRoot();
    ContainmentSettings settings =
        new ContainmentSettings(
            EnumSet.of(MesosIsolation.DEVICES),
            false,
            true,
            CgroupFixture.CGROUP_ROOT,
            dev,
            ContainmentSettings.DEFAULT_SETPRIV,
            cgroups.parent);
    Containment v1 = Containment.create(settings);
    Containment v2 = Containment.create(settings, new CgroupLayout.Unified(unified));
    CgroupFixture.require(v1.preflight(), "cgroup-v1");
    CgroupFixture.require(v2.preflight(), "cgroup-v2-bpf");
    Limits limits = new Limits(64L << 20, 1, false);
    Fence onlyNvidia0 =
        v1.create("both", limits, List.of(DeviceNode.of(dev.resolve("nvidia0"))), Optional.empty());
    fences.add(onlyNvidia0);
    Fence onlyNvidia1 =
        v2.create("both", limits, List.of(DeviceNode.of(dev.resolve("nvidia1"))), Optional.empty());
    fences.add(onlyNvidia1);

    List<String> argv = new ArrayList<>(onlyNvidia0.launchPrefix());
    argv.addAll(onlyNvidia1.launchPrefix());
    argv.addAll(List.of("/bin/sh", "-c", "for n; do (exec 3<\"$n\") 2>&1; done", "probe"));
    for (String node : List.of("nvidia0", "nvidia1", "nvidia2")) {
      argv.add(dev.resolve(node).toString());
    }
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();

    List<String> lines = out.strip().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).contains("nvidia0").contains(ContainmentContract.EPERM); // BPF
    assertThat(lines.get(1)).contains("nvidia1").contains(ContainmentContract.EPERM); // v1
    assertThat(lines.get(2)).contains("nvidia2").contains(ContainmentContract.EPERM); // both
  }
}
