package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Fence#update} on v2, against a file tree shaped like a cgroup2 mount as in {@link
 * CgroupV2LimitsTest}: the hybrid nodes this is tested on have no v2 memory or cpu controller, so
 * what is checked is which files are written with what, {@code memory.current} standing in for the
 * kernel's usage.
 */
class CgroupV2UpdateTest {
  @TempDir Path root;

  private Fence fence(String id, Limits limits) throws IOException {
    Containment containment = V2FileTree.containment(root);
    Fence fence = containment.create(id, limits, List.of(), Optional.empty());
    assertThat(fence).isInstanceOf(CgroupV2Fence.class);
    return fence;
  }

  private String read(String id, String file) throws IOException {
    return Files.readString(root.resolve("acceld/mesos").resolve(id).resolve(file)).strip();
  }

  private void uses(String id, long bytes) throws IOException {
    Files.writeString(
        root.resolve("acceld/mesos").resolve(id).resolve("memory.current"), bytes + "\n");
  }

  @Test
  void anUpdateRaisesAndLowersMaxLowWeightAndQuota() throws IOException {
    Fence fence = fence("t1", new Limits(64L << 20, 1, false));
    uses("t1", 8L << 20);

    fence.update(new Limits(192L << 20, 2, true));

    assertThat(read("t1", "memory.max")).isEqualTo(String.valueOf(192L << 20));
    assertThat(read("t1", "memory.low")).isEqualTo(String.valueOf(192L << 20));
    assertThat(read("t1", "cpu.weight")).isEqualTo("79");
    assertThat(read("t1", "cpu.max")).isEqualTo("200000 100000");

    fence.update(new Limits(32L << 20, 0.5, false));

    assertThat(read("t1", "memory.max")).isEqualTo(String.valueOf(32L << 20));
    assertThat(read("t1", "memory.low")).isEqualTo(String.valueOf(32L << 20));
    assertThat(read("t1", "cpu.weight")).isEqualTo("20");
    assertThat(read("t1", "cpu.max")).isEqualTo("max 100000");
    assertThat(fence.limits()).isEqualTo(new Limits(32L << 20, 0.5, false));
  }

  /**
   * The kernel would OOM-kill a container to bring it under a lower {@code memory.max}: while it
   * uses more than three quarters of it, the higher limit stays and one WARN names the container;
   * the next update, once it uses less, lowers it.
   */
  @Test
  void aLowerMaxThanInUseIsKeptHigherWithAWarningAndTakenLater() throws IOException {
    Fence fence = fence("t2", new Limits(128L << 20, 1, false));
    uses("t2", 100L << 20);

    try (LogCapture logs = LogCapture.of(MemoryLowering.class)) {
      fence.update(new Limits(64L << 20, 1, false));

      assertThat(read("t2", "memory.max")).isEqualTo(String.valueOf(128L << 20));
      assertThat(read("t2", "memory.low")).isEqualTo(String.valueOf(64L << 20));
      assertThat(fence.limits().memoryBytes()).isEqualTo(128L << 20);
      assertThat(logs.warnings())
          .singleElement()
          .satisfies(
              w ->
                  assertThat(w)
                      .contains("Container t2 keeps its memory limit of " + (128L << 20))
                      .contains("it uses " + (100L << 20) + " bytes"));
    }

    uses("t2", 49L << 20); // under 64 MiB, but without a quarter of it to spare
    fence.update(new Limits(64L << 20, 1, false));
    assertThat(read("t2", "memory.max")).isEqualTo(String.valueOf(128L << 20));

    uses("t2", 48L << 20);
    fence.update(new Limits(64L << 20, 1, false));

    assertThat(read("t2", "memory.max")).isEqualTo(String.valueOf(64L << 20));
    assertThat(fence.limits().memoryBytes()).isEqualTo(64L << 20);
  }
}
