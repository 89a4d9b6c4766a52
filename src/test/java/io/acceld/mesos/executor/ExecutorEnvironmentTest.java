package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.proto.mesos.v1.CommandInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutorEnvironmentTest {
  @Test
  void durationsArePrintedAsStoutDoesForClientLibrariesToParse() {
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofSeconds(5))).isEqualTo("5secs");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofMinutes(15))).isEqualTo("15mins");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofSeconds(90))).isEqualTo("1.5mins");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofHours(2))).isEqualTo("2hrs");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofDays(14))).isEqualTo("2weeks");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofSeconds(20))).isEqualTo("20secs");
    assertThat(ExecutorEnvironment.stoutDuration(Duration.ofNanos(7))).isEqualTo("7ns");
  }

  @Test
  void anExecutorOfSeveralTasksSeesAllTheirGpusOnce() {
    Map<String, String> env =
        ExecutorEnvironment.deviceVariables(
            List.of(gpus("GPU-a", "GPU-b"), gpus("GPU-b", "GPU-c"), NO_DEVICES));

    assertThat(env)
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-a,GPU-b,GPU-c")
        .containsEntry("CUDA_VISIBLE_DEVICES", "GPU-a,GPU-b,GPU-c");
  }

  @Test
  void otherDeviceVariablesPassThrough() {
    RuntimeSpec amd =
        new RuntimeSpec(Map.of("AMD_VISIBLE_DEVICES", "1"), List.of(), List.of(), List.of());

    assertThat(ExecutorEnvironment.deviceVariables(List.of(amd)))
        .containsEntry("AMD_VISIBLE_DEVICES", "1")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "void")
        .containsEntry("CUDA_VISIBLE_DEVICES", "");
  }

  @Test
  void onlyAFewOfTheAgentsOwnVariablesArePassedOn() {
    ExecutorEnvironment environment =
        new ExecutorEnvironment(
            AGENT_ADDRESS,
            Map.of("PATH", "/usr/bin:/bin", "ACCELD_MESOS_AUTH", "bearer:/secret", "HOME", "/root"),
            Duration.ofMinutes(15),
            Duration.ofSeconds(2));

    Map<String, String> env =
        environment.forCommandTask(
            FRAMEWORK_INFO,
            AGENT,
            task("t", shell("true")),
            NO_DEVICES,
            new Sandbox(Path.of("/s")));

    assertThat(env)
        .containsEntry("PATH", "/usr/bin:/bin")
        .doesNotContainKeys("ACCELD_MESOS_AUTH", "HOME");
  }

  @Test
  void argvFollowsMesossConventions() {
    CommandLine line = new CommandLine("setsid", "/bin/sh");

    assertThat(line.argv(shell("echo $HOME"))).containsExactly("/bin/sh", "-c", "echo $HOME");
    // shell=false: value is the program, arguments its argv with arguments[0] its name.
    assertThat(line.argv(exec("/usr/bin/printf", "printf", "%s", "x")))
        .containsExactly("/usr/bin/printf", "%s", "x");
    assertThat(line.argv(exec("/bin/true"))).containsExactly("/bin/true");
    assertThatThrownBy(() -> line.argv(CommandInfo.newBuilder().setShell(false).build()))
        .hasMessageContaining("'value'");
    assertThat(line.wrapped(List.of("a", "$(b)"), Path.of("/s/status")))
        .containsExactly(
            "setsid", "/bin/sh", "-c", CommandLine.WRAPPER_SCRIPT, "/s/status", "a", "$(b)");
  }
}
