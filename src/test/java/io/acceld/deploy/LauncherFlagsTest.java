package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The launcher ({@code deploy/bin/acceld}, the real script) picks its JVM flags by the runtime's
 * version, read from the {@code release} file beside it: a flag a runtime does not know stops that
 * JVM before it starts, so each must be asked for only where it exists. The runtime here is a
 * stand-in {@code bin/java} that prints the arguments it was given.
 */
class LauncherFlagsTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}: trimming {1}, compact headers {2}")
  @CsvSource({
    "17.0.8, false, false",
    "17.0.9, true, false",
    "17.0.15, true, false",
    "19.0.2, false, false",
    "21, false, false",
    "21.0.1, true, false",
    "22, true, false",
    "25.0.3, true, true",
    "25-ea, true, true"
  })
  void flagsFollowTheRuntimesVersion(String version, boolean trims, boolean compact)
      throws Exception {
    List<String> args = launch(version);
    assertThat(args).contains("-XX:+UseSerialGC", "-jar");
    if (trims) {
      assertThat(args)
          .containsSubsequence(
              "-XX:+UnlockExperimentalVMOptions", "-XX:TrimNativeHeapInterval=5000");
    } else {
      assertThat(args).noneMatch(a -> a.startsWith("-XX:TrimNativeHeapInterval"));
    }
    assertThat(args.contains("-XX:+UseCompactObjectHeaders")).isEqualTo(compact);
  }

  @Test
  void theRuntimesOwnFlagsFileIsAddedAndAnEmptyOneAddsNothing() throws Exception {
    Path lib = Files.createDirectories(dir.resolve("jdk-17.0.15/lib"));
    Files.writeString(lib.resolve("acceld.flags"), "-XX:StackShadowPages=10\n");
    List<String> args = launch("17.0.15");
    assertThat(args).containsSubsequence("-XX:+UseSerialGC", "-XX:StackShadowPages=10", "-jar");

    Files.writeString(lib.resolve("acceld.flags"), "");
    assertThat(launch("17.0.15"))
        .noneMatch(a -> a.startsWith("-XX:StackShadowPages"))
        .noneMatch(String::isBlank);
  }

  @Test
  void withoutAFlagsFileTheShadowZoneIsTheRuntimesDefault() throws Exception {
    // A JDK from PATH or JAVA_HOME: its architecture is not known here, and 10 pages is out of
    // range on aarch64, where the JVM would refuse to start.
    assertThat(launch("21.0.4")).noneMatch(a -> a.startsWith("-XX:StackShadowPages"));
  }

  @Test
  void theRuntimesMovedCaBundleIsTheTrustStoreEvenWithTheOperatorsOwnFlags() throws Exception {
    Path security = Files.createDirectories(dir.resolve("jdk-17.0.15/lib/security"));
    String trustStore = "-Djavax.net.ssl.trustStore=" + security.resolve("acceld-cacerts");
    assertThat(launch("17.0.15")).noneMatch(a -> a.startsWith("-Djavax.net.ssl.trustStore"));

    Files.writeString(security.resolve("acceld-cacerts"), "a key store");
    assertThat(launch("17.0.15")).containsSubsequence("-XX:+UseSerialGC", trustStore, "-jar");
    // ACCELD_JVM_FLAGS replaces the defaults, not the trust store: without it the JVM would trust
    // no CA at all. An operator's own trust store, in the extra flags, comes after and wins.
    assertThat(launch("17.0.15", Map.of("ACCELD_JVM_FLAGS", "-Xmx32m")))
        .containsSubsequence("-Xmx32m", trustStore, "-jar")
        .doesNotContain("-XX:+UseSerialGC");
    assertThat(
            launch(
                "17.0.15",
                Map.of("ACCELD_JVM_EXTRA_FLAGS", "-Djavax.net.ssl.trustStore=/etc/pki/mine")))
        .containsSubsequence(trustStore, "-Djavax.net.ssl.trustStore=/etc/pki/mine", "-jar");
  }

  private List<String> launch(String version) throws Exception {
    return launch(version, Map.of());
  }

  private List<String> launch(String version, Map<String, String> environment) throws Exception {
    Path home = Files.createDirectories(dir.resolve("jdk-" + version));
    Files.createDirectories(home.resolve("bin"));
    Files.writeString(
        home.resolve("release"),
        "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\nOS_NAME=\"Linux\"\n");
    Path java = home.resolve("bin/java");
    Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path jar =
        Files.writeString(dir.resolve("acceld.jar"), "not a jar: the java here never reads it");
    ProcessBuilder pb =
        new ProcessBuilder(Path.of("deploy/bin/acceld").toAbsolutePath().toString(), "version");
    pb.environment().put("ACCELD_JAVA", java.toString());
    pb.environment().put("ACCELD_JAR", jar.toString());
    pb.environment().remove("ACCELD_JVM_FLAGS");
    pb.environment().remove("ACCELD_JVM_EXTRA_FLAGS");
    pb.environment().putAll(environment);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().toList();
  }
}
