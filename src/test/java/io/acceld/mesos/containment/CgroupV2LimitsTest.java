package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * v2 memory and cpu against a file tree shaped like a cgroup2 mount: the hybrid nodes this is
 * tested on have no v2 memory or cpu controller, so only the files written and read are checked
 * here, not the kernel's behavior (v1 covers that).
 */
class CgroupV2LimitsTest {
  @TempDir Path root;

  private Containment containment() throws IOException {
    return V2FileTree.containment(root);
  }

  @Test
  void writesMaxWeightAndQuotaAndEnablesTheControllers() throws IOException {
    Containment c = containment();
    Files.createDirectories(root.resolve("acceld/mesos/t1"));
    Files.delete(root.resolve("acceld/mesos/t1"));
    Fence fence = c.create("t1", new Limits(96L << 20, 2, true), List.of(), Optional.empty());
    Path dir = root.resolve("acceld/mesos/t1");

    assertThat(fence).isInstanceOf(CgroupV2Fence.class);
    assertThat(Files.readString(dir.resolve("memory.max"))).isEqualTo(String.valueOf(96L << 20));
    assertThat(Files.readString(dir.resolve("cpu.weight"))).isEqualTo("79");
    assertThat(Files.readString(dir.resolve("cpu.max"))).isEqualTo("200000 100000");
    assertThat(fence.launchPrefix()).contains(dir.resolve("cgroup.procs").toString());
    // the file tree keeps only the last write; the kernel's file accumulates them
    assertThat(Files.readString(root.resolve("acceld/mesos/cgroup.subtree_control")))
        .isIn("+memory", "+cpu");
  }

  @Test
  void memoryEventsOomKillIsTheLimitHit() throws IOException {
    Fence fence =
        containment().create("t2", new Limits(64L << 20, 1, false), List.of(), Optional.empty());
    Path events = root.resolve("acceld/mesos/t2/memory.events");
    Files.writeString(events, "low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\n");
    assertThat(fence.memoryLimitHit()).isFalse();
    Files.writeString(events, "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n");
    assertThat(fence.memoryLimitHit()).isTrue();
    // killed, but not at its own limit: a node out of memory, or an ancestor's memory.max
    Files.writeString(events, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n");
    assertThat(fence.memoryLimitHit()).isFalse();
  }
}
