package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * java.util.logging, which grpc logs through, reaches logback with logback's levels though the
 * bridge is only set up when JUL is first used ({@link JulBridge}): run on the shipped jar, in a
 * JVM of its own, with the agent's own logback set-up.
 */
class JulBridgeIT {
  @TempDir Path dir;

  @Test
  void atInfoJulRecordsAreLogbackLinesAndWhatLogbackDropsNeverPrints() throws Exception {
    List<String> lines = probe("info");

    assertThat(lines)
        .anySatisfy(l -> assertThat(l).matches("\\S+ WARN  \\[main\\] Probe: a JUL warning"))
        .anySatisfy(l -> assertThat(l).matches("\\S+ INFO  \\[main\\] Probe: a JUL info"))
        .noneSatisfy(l -> assertThat(l).contains("a JUL fine"))
        .noneSatisfy(l -> assertThat(l).contains("a Netty info"));
    // Nothing in JUL's own two-line format from its default console handler.
    assertThat(lines).allSatisfy(l -> assertThat(l).matches("\\S+ [A-Z]+ +\\[main\\] \\w+: .*"));
  }

  @Test
  void atDebugJulsFineRecordsComeThroughButNettysStayAtWarn() throws Exception {
    List<String> lines = probe("debug");

    assertThat(lines)
        .anySatisfy(l -> assertThat(l).matches("\\S+ DEBUG \\[main\\] Probe: a JUL fine"))
        .anySatisfy(l -> assertThat(l).matches("\\S+ WARN  \\[main\\] Probe: a JUL warning"))
        .noneSatisfy(l -> assertThat(l).contains("a Netty info"));
  }

  private List<String> probe(String level) throws Exception {
    // The probe's class alone beside the jar: the test classes' directory would bring
    // logback-test.xml, and LogbackDefaults steps aside for it.
    Path classes = dir.resolve("classes");
    Path probe = classes.resolve("io/acceld/cli/JulBridgeProbe.class");
    Files.createDirectories(probe.getParent());
    try (var in = JulBridgeProbe.class.getResourceAsStream("JulBridgeProbe.class")) {
      Files.copy(in, probe);
    }
    Path err = dir.resolve("err.txt");
    Process p =
        new ProcessBuilder(
                AgentProcessIT.javaBin(),
                "-cp",
                AgentProcessIT.jar().toAbsolutePath() + ":" + classes,
                JulBridgeProbe.class.getName(),
                level)
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
    assertThat(lines).anySatisfy(l -> assertThat(l).endsWith("JulBridgeProbe: logback is set up"));
    return lines;
  }
}
