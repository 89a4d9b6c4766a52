package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceTableTest {
  private static Map<String, Object> row(String holderKind, String holder) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("resource", "nvidia.com/gpu");
    row.put("id", "GPU-1");
    row.put("model", "NVIDIA H100");
    row.put("pciAddress", "0000:3b:00.0");
    row.put("numaNode", 0);
    row.put("health", "Healthy");
    row.put("deviceNodes", List.of("/dev/nvidia0"));
    row.put("holderKind", holderKind);
    row.put("holder", holder);
    row.put("heldSince", "2026-12-02T15:00:00Z");
    return row;
  }

  @Test
  void aFencedMesosTaskShowsItsUserMemoryAndCgroup() {
    Map<String, Object> task = row("mesos_task", "fw-1/train");
    task.put(
        "container",
        Map.of(
            "containerId",
            "c-42",
            "user",
            "nobody (65534:65534)",
            "memoryBytes",
            64L << 20,
            "cgroups",
            List.of("/sys/fs/cgroup/memory/acceld/mesos/c-42")));

    assertThat(DeviceTable.render(List.of(task)))
        .contains("mesos fw-1/train [as nobody (65534:65534), 64 MiB, cgroup acceld/mesos/c-42]");
  }

  @Test
  void anUnfencedTaskAndOtherHoldersShowNoFence() {
    String table =
        DeviceTable.render(
            List.of(row("mesos_task", "fw-1/plain"), row("kubelet_pod", "ns/pod/main")));
    assertThat(table).contains("mesos fw-1/plain").doesNotContain("[as").doesNotContain("cgroup");
    assertThat(table).contains("pod ns/pod/main");
  }
}
