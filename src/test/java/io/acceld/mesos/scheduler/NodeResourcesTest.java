package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeResourcesTest {
  @TempDir Path proc;

  @Test
  void cpusAndMemoryComeFromProcMinusTheReserve() throws Exception {
    Files.writeString(
        proc.resolve("cpuinfo"), "processor\t: 0\n\nprocessor\t: 1\n\nprocessor\t: 2\n");
    Files.writeString(proc.resolve("meminfo"), "MemTotal:        8388608 kB\n");

    Quantities q =
        NodeResources.read(proc, proc, new Quantities(Map.of("cpus", 0.5, "mem", 1024.0)));

    assertThat(q.get("cpus")).isEqualTo(2.5);
    assertThat(q.get("mem")).isEqualTo(8192 - 1024);
    assertThat(q.get("disk")).isPositive();
  }

  @Test
  void withoutCpuinfoTheCpusOfStatAreCounted() throws Exception {
    Files.writeString(proc.resolve("stat"), "cpu  1 2 3\ncpu0 1 2 3\ncpu1 1 2 3\nintr 5\n");
    assertThat(NodeResources.cpus(proc)).isEqualTo(2);
  }

  @Test
  void unreadableFilesOfferNoneOfTheirResourceInsteadOfFailing() {
    assertThat(NodeResources.cpus(proc.resolve("missing"))).isZero();
    assertThat(NodeResources.memMb(proc.resolve("missing"))).isZero();
  }

  @Test
  void theReserveNeverMakesAnAmountNegative() throws Exception {
    Files.writeString(proc.resolve("cpuinfo"), "processor\t: 0\n");
    Files.writeString(proc.resolve("meminfo"), "MemTotal:  524288 kB\n");
    Quantities q = NodeResources.read(proc, proc, Reserve.parse("cpus:4;mem:1024"));
    assertThat(q.get("cpus")).isZero();
    assertThat(q.get("mem")).isZero();
  }
}
