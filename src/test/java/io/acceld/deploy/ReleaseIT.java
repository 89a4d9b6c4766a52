package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.testing.Command;
import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.util.BuildInfo;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release artefacts as an operator gets them: {@code deploy/release/build.sh} run for real, its
 * tarball installed by its own {@code install.sh} ({@link RuntimeImage} installs it once; {@code
 * ReleaseIT.TheInstalledRuntime} runs what it installed) and its .deb by {@code dpkg}, each into a
 * throwaway root with no JDK on the {@code PATH}, and the agent started from there. The .deb has
 * its own class, {@link DebPackageIT}, and so has the second build, {@link ReproducibleReleaseIT}:
 * each in its own test JVM, they run beside these instead of after them.
 */
class ReleaseIT {
  private static final long MAX_BYTES = 60L << 20;

  @TempDir Path dir;

  private static String version() {
    return BuildInfo.current().version();
  }

  @Test
  void bothArtefactsAreNamedForTheVersionFitIn60MiBAndAreInSha256sums() throws IOException {
    Path tarball = RuntimeImage.tarball();
    Path deb = RuntimeImage.deb();
    assertThat(tarball.getFileName()).hasToString("acceld-" + version() + "-linux-amd64.tar.gz");
    assertThat(deb.getFileName()).hasToString("acceld_" + version() + "_amd64.deb");
    assertThat(Files.size(tarball)).isLessThanOrEqualTo(MAX_BYTES);
    assertThat(Files.size(deb)).isLessThanOrEqualTo(MAX_BYTES);
    String check =
        Command.run(RuntimeImage.release(), "sha256sum", "--check", "--strict", "sha256sums").ok();
    assertThat(check).contains(tarball.getFileName() + ": OK").contains(deb.getFileName() + ": OK");
  }

  @Test
  void theTarballInstallsWithoutAJdkAndMakesItsArchiveWhereItIsInstalled() throws Exception {
    Path root = RuntimeImage.installRoot();
    Path prefix = RuntimeImage.prefix();
    Path bin = root.resolve("usr/local/bin");
    assertThat(Files.readString(root.resolve("etc/systemd/system/acceld.service")))
        .contains("ExecStart=" + prefix + "/bin/acceld run");
    assertThat(root.resolve("etc/default/acceld")).isRegularFile();
    assertThat(root.resolve("etc/acceld/config.yaml")).isRegularFile();
    assertThat(bin.resolve("acceld").toRealPath())
        .isEqualTo(prefix.resolve("bin/acceld").toRealPath());
    Path completion = root.resolve("usr/local/share/bash-completion/completions/acceld");
    assertThat(completion.toRealPath())
        .isEqualTo(prefix.resolve("share/bash-completion/completions/acceld").toRealPath());
    assertThat(Command.run(root, "bash", "-n", completion.toString()).exitCode()).isZero();
    // The archive was made for where the tree now is, by the tree's own runtime.
    assertThat(prefix.resolve("jre/lib/acceld.jsa")).isNotEmptyFile();
    assertThat(Files.readString(prefix.resolve("jre/lib/acceld.jsa.classpath")).strip())
        .isEqualTo(prefix.resolve("lib/acceld.jar").toString());
    assertThat(prefix.resolve("install.sh")).doesNotExist();
    assertThat(prefix.resolve("share/acceld/gpu-check.sh")).isExecutable();
    // The Mesos drop-in travels with the tree, and only --mesos puts it beside the unit.
    assertThat(prefix.resolve("share/systemd/acceld-mesos.conf"))
        .hasSameTextualContentAs(Path.of("deploy/systemd/acceld-mesos.conf"));
    assertThat(root.resolve("etc/systemd/system/acceld.service.d")).doesNotExist();
    // Installed under umask 077, the tree is still the packaged 0755/0644.
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(prefix.resolve("bin/acceld"))))
        .isEqualTo("rwxr-xr-x");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(prefix.resolve("lib/acceld.jar"))))
        .isEqualTo("rw-r--r--");

    // The installed command, with no JDK reachable; -Xshare:on turns an archive that does not fit
    // into a failed start.
    Map<String, String> env = RuntimeImage.withJvmFlags(RuntimeImage.noJdk(), "-Xshare:on");
    String shown = Command.run(dir, env, List.of(bin + "/acceld", "--version")).ok();
    assertThat(shown.lines().findFirst()).hasValue("acceld " + version());
  }

  /**
   * The real-GPU check as it runs from the tarball, here against the simulated node and an
   * nvidia-smi stand-in that reports what the simulated driver holds (identities; live readings as
   * {@code [N/A]}, which the check skips): doctor, devices, a run serving the kubelet probe and
   * /metrics, then one report with every GPU's identities matched. The comparison's rules have
   * their own test (GpuCheckCompareTest).
   */
  @Test
  void theTarballsGpuCheckRunsTheAgentAndMatchesItAgainstNvidiaSmi() throws Exception {
    Path prefix = RuntimeImage.prefix();
    Map<String, String> env = RuntimeImage.noJdk();
    env.put("ACCELD_NATIVE_PROBES", RuntimeImage.nativeProbes().toAbsolutePath().toString());
    Command.run(
            dir,
            env,
            List.of("sh", "-c", prefix + "/bin/acceld devices --json --simulate >devices.json"))
        .ok();
    String devices = Files.readString(dir.resolve("devices.json"));
    StringBuilder csv = new StringBuilder();
    for (var gpu : new com.fasterxml.jackson.databind.ObjectMapper().readTree(devices)) {
      if (gpu.path("uuid").asText().startsWith("GPU-")) {
        csv.append(gpu.get("uuid").asText())
            .append(", ")
            .append(gpu.get("model").asText())
            .append(", 0000")
            .append(gpu.get("pciAddress").asText().toUpperCase(java.util.Locale.ROOT))
            .append(", ")
            .append(gpu.get("memoryBytes").asLong() >> 20)
            .append(", ")
            .append(gpu.get("driverVersion").asText())
            .append(", [N/A], [N/A], [N/A], [N/A], [N/A]\n");
      }
    }
    Files.writeString(dir.resolve("smi.csv"), csv.toString());
    Path smi = dir.resolve("nvidia-smi");
    Files.writeString(
        smi,
        "#!/bin/sh\n"
            + "case \"$*\" in\n"
            + "  *-x*) echo '<nvidia_smi_log><driver_version>550.54.15</driver_version></nvidia_smi_log>' ;;\n"
            + "  *) cat '"
            + dir.resolve("smi.csv")
            + "' ;;\n"
            + "esac\n");
    assertThat(smi.toFile().setExecutable(true)).isTrue();
    env.put("NVIDIA_SMI", smi.toString());
    env.put("GPU_CHECK_SECONDS", "2");
    env.put("GPU_CHECK_ARGS", "--simulate");
    Path report = dir.resolve("report.txt");

    Command.Result check =
        Command.run(
            dir,
            env,
            List.of(prefix + "/share/acceld/gpu-check.sh", prefix.toString(), report.toString()),
            Duration.ofMinutes(2));

    String text = Files.readString(report);
    assertThat(check.exitCode()).as(text + check.output()).isZero();
    assertThat(text)
        .contains("agent served: true; kubelet-probe exit 0; run exit 0")
        .contains("nvidia-smi: 8 GPU(s), driver 550.54.15")
        .contains("0 mismatch(es)")
        .contains("--- acceld doctor --json");
    assertThat(text.lines().filter(l -> l.startsWith("MATCH") && l.contains("memory MiB")))
        .hasSize(8);
  }

  @Test
  void anUpgradeKeepsThePreviousTreeAndTheOperatorsFiles() throws Exception {
    Path root = dir.resolve("root");
    Path tree = RuntimeImage.extract(dir.resolve("extracted"));
    Map<String, String> env = RuntimeImage.installEnvironment(root);
    env.put("ACCELD_SKIP_CDS", "true");
    List<String> install = List.of(tree.resolve("install.sh").toString(), "--no-start");
    Command.run(dir, env, install).ok();
    Files.writeString(root.resolve("etc/default/acceld"), "ACCELD_ARGS=--log-level debug\n");
    Files.writeString(root.resolve("etc/acceld/config.yaml"), "log-level: debug\n");

    List<String> withMesos = new ArrayList<>(install);
    withMesos.add("--mesos");
    Command.run(dir, env, withMesos).ok();

    assertThat(root.resolve("etc/systemd/system/acceld.service.d/mesos.conf"))
        .hasSameTextualContentAs(Path.of("deploy/systemd/acceld-mesos.conf"));
    assertThat(root.resolve("opt/acceld.previous/bin/acceld")).isExecutable();
    assertThat(root.resolve("opt/acceld/bin/acceld")).isExecutable();
    assertThat(Files.readString(root.resolve("etc/default/acceld")))
        .isEqualTo("ACCELD_ARGS=--log-level debug\n");
    assertThat(Files.readString(root.resolve("etc/acceld/config.yaml")))
        .isEqualTo("log-level: debug\n");
  }

  /**
   * What the image ships, started as the image starts it: the {@code acceld} launcher on the
   * jlinked runtime with the AppCDS archive, made by the same {@code build-runtime.sh} the
   * Dockerfile runs.
   *
   * <p>Nested in ReleaseIT, not a class of its own: it needs the release build, and run in the
   * other test JVM it waited out that build (minutes on a loaded machine) instead of running other
   * tests.
   */
  @Nested
  class TheInstalledRuntime {
    @TempDir Path dir;

    private Process launch(Path prefix, String... args) throws Exception {
      // -Xshare:on turns "the AppCDS archive does not fit this jar" into a failed start.
      return launchWithJvmFlags(prefix, "-Xshare:on", args);
    }

    /** The tree's launcher with {@code args}, its output to out.txt and err.txt. */
    private ProcessBuilder launcher(Path prefix, String... args) {
      List<String> command = new ArrayList<>(List.of(prefix.resolve("bin/acceld").toString()));
      command.addAll(List.of(args));
      return new ProcessBuilder(command)
          // Not the checkout: systemd starts it in /, and the archive must not depend on it.
          .directory(dir.toFile())
          .redirectOutput(dir.resolve("out.txt").toFile())
          .redirectError(dir.resolve("err.txt").toFile());
    }

    private Process launchWithJvmFlags(Path prefix, String jvmFlags, String... args)
        throws Exception {
      ProcessBuilder builder = launcher(prefix, args);
      builder
          .environment()
          .put("ACCELD_NATIVE_PROBES", RuntimeImage.nativeProbes().toAbsolutePath().toString());
      builder.environment().put("ACCELD_JVM_EXTRA_FLAGS", jvmFlags);
      builder.environment().remove("JAVA_HOME");
      builder.environment().remove("ACCELD_JAVA");
      builder.environment().remove("ACCELD_JAR");
      return builder.start();
    }

    /** {@code run --simulate} of the tree at {@code prefix}, registering with {@code kubelet}. */
    private Process runAgainst(Path prefix, KubeletDouble kubelet, String jvmFlags)
        throws Exception {
      return launchWithJvmFlags(
          prefix,
          jvmFlags,
          "run",
          "--simulate",
          "--device-plugin-dir",
          kubelet.deviceDir().toString(),
          "--metrics-address",
          "127.0.0.1:0");
    }

    private String out() throws Exception {
      return RuntimeImage.read(dir.resolve("out.txt"));
    }

    private String err() throws Exception {
      return RuntimeImage.read(dir.resolve("err.txt"));
    }

    @Test
    void theJlinkedRuntimeRegistersWithTheKubeletAndStopsCleanlyOnSigterm() throws Exception {
      Path prefix = RuntimeImage.prefix();
      try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
        Process agent = runAgainst(prefix, kubelet, "-Xshare:on");
        try {
          kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(60));
          // The launcher exec'd the jlinked java: the registered process is that runtime, not the
          // JDK running this test.
          assertThat(Path.of("/proc", Long.toString(agent.pid()), "exe").toRealPath())
              .isEqualTo(prefix.resolve("jre/bin/java").toRealPath());
          if (System.getProperty("os.arch").equals("amd64")) {
            // build-runtime.sh asked the runtime for its smallest stack shadow zone, and the JVM
            // that registered was started with it (40 KiB less resident stack a Java thread).
            assertThat(prefix.resolve("jre/lib/acceld.flags"))
                .hasContent("-XX:StackShadowPages=10");
            assertThat(
                    Files.readString(Path.of("/proc", Long.toString(agent.pid()), "cmdline"))
                        .split("\0"))
                .contains("-XX:StackShadowPages=10");
          }
          assertThat(
                  kubelet.awaitDevices(
                      "nvidia.com/gpu", d -> d.size() == 8, Duration.ofSeconds(30)))
              .hasSize(8);
          Path socket = kubelet.deviceDir().resolve("acceld-nvidia.com_gpu.sock");
          assertThat(socket).exists();

          agent.destroy(); // SIGTERM, straight to the JVM
          assertThat(Waits.exited(agent, Duration.ofSeconds(10)))
              .as("stopped within 10 s")
              .isTrue();

          assertThat(agent.exitValue()).as(err()).isZero();
          assertThat(socket).doesNotExist();
          kubelet.awaitStreamEnded("nvidia.com/gpu", Duration.ofSeconds(5));
        } finally {
          agent.destroyForcibly();
        }
      }
    }

    @Test
    void theTreeLoadsJnaAndNettysNativeLibrariesFromItselfNotFromTemporaryCopies()
        throws Exception {
      Path prefix = RuntimeImage.prefix();
      assertThat(prefix.resolve("lib/native/libjnidispatch.so")).isNotEmptyFile();
      // The temporary directory an operator's node may mount noexec: nothing of the agent's own
      // is extracted there (the simulated node's NVML double, a test fixture, is).
      Path tmp = Files.createDirectory(dir.resolve("tmp"));
      try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
        Process agent = runAgainst(prefix, kubelet, "-Xshare:on -Djava.io.tmpdir=" + tmp);
        try {
          assertThat(
                  kubelet.awaitDevices(
                      "nvidia.com/gpu", d -> d.size() == 8, Duration.ofSeconds(60)))
              .hasSize(8);
          assertThat(err()).contains("with epoll");
          try (var left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                .allMatch(name -> name.startsWith("acceld-simulate-"), "only the NVML double");
          }
        } finally {
          agent.destroy(); // SIGTERM: the agent removes its simulated node
          if (!Waits.exited(agent, Duration.ofSeconds(10))) {
            agent.destroyForcibly();
          }
        }
      }
    }

    @Test
    void theJlinkedRuntimeSeesTheGpusThroughNvmlAndKeepsStdoutClean() throws Exception {
      Path prefix = RuntimeImage.prefix();
      Process devices = launch(prefix, "devices", "--simulate", "--json");
      assertThat(Waits.exited(devices, Duration.ofSeconds(60))).isTrue();

      assertThat(devices.exitValue()).as(err()).isZero();
      assertThat(err()).doesNotContain("class-data archive");
      JsonNode list = new ObjectMapper().readTree(out());
      assertThat(list).hasSize(8);
      list.forEach(d -> assertThat(d.get("driverVersion").asText()).isEqualTo("550.54.15"));
    }

    @Test
    void theRuntimeLeavesOutTheModulesTheAgentDoesNotUse() throws Exception {
      Path prefix = RuntimeImage.prefix();
      List<String> modules =
          Files.readAllLines(prefix.resolve("jre/release")).stream()
              .filter(line -> line.startsWith("MODULES="))
              .toList();
      assertThat(modules).singleElement().asString().doesNotContain("java.desktop", "java.sql");
      assertThat(prefix.resolve("jre/lib/acceld.jsa")).isNotEmptyFile();
    }

    @Test
    void theJdksCasAreTheDefaultTrustFromTheirOwnFileAndSha1ServerCertificatesStayRefused()
        throws Exception {
      Path prefix = RuntimeImage.prefix();
      Path security = prefix.resolve("jre/lib/security");
      // Moved, so the JDK does not parse and keep every CA at the first certificate check.
      assertThat(security.resolve("cacerts")).doesNotExist();
      KeyStore bundle =
          KeyStore.getInstance(security.resolve("acceld-cacerts").toFile(), (char[]) null);
      assertThat(bundle.size()).isPositive();
      List<String> policy =
          Files.readAllLines(prefix.resolve("jre/conf/security/java.security")).stream()
              .filter(line -> !line.stripLeading().startsWith("#"))
              .toList();
      assertThat(String.join("\n", policy))
          .contains("SHA1 usage TLSServer")
          .doesNotContain("jdkCA");

      // What trusts the JDK's CAs (a kubeconfig that names none) still does, through the launcher
      // as an operator runs it.
      assertThat(probe(prefix, "anchors")).isEqualTo("default trust anchors: " + bundle.size());
    }

    @Test
    void theClassesANodeReadsFromLibModulesLieFirstInIt() throws Exception {
      // jimage list --verbose: "offset size compressed name" per resource, under "Module: m".
      Path jimage = Path.of(System.getProperty("java.home"), "bin", "jimage");
      assumeTrue(Files.isExecutable(jimage), "needs the JDK's jimage");
      Command.Result listing =
          Command.run(
              dir,
              jimage.toString(),
              "list",
              "--verbose",
              RuntimeImage.prefix().resolve("jre/lib/modules").toString());
      Set<String> listed =
          Files.readAllLines(Path.of("deploy/image/jimage-order.classlist")).stream()
              .filter(line -> !line.startsWith("#") && !line.isBlank())
              .map(line -> line + ".class")
              .collect(Collectors.toSet());
      long lastListed = -1;
      long firstOther = Long.MAX_VALUE;
      int found = 0;
      for (String line : listing.ok().split("\n")) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length != 4
            || !fields[0].matches("\\d+")
            || fields[3].endsWith("module-info.class")) {
          continue;
        }
        long offset = Long.parseLong(fields[0]);
        if (listed.contains(fields[3])) {
          found++;
          lastListed = Math.max(lastListed, offset);
        } else {
          firstOther = Math.min(firstOther, offset);
        }
      }
      assertThat(found).as("listed classes in the runtime").isGreaterThan(listed.size() * 9 / 10);
      assertThat(lastListed)
          .as("the last listed class lies before every other resource")
          .isLessThan(firstOther);
    }

    @Test
    void theRuntimeShakesHandsWithAServerThatOffersOnlyWhatGosTlsOffers() throws Exception {
      // The kube-apiserver's TLS (Go) has no finite-field DH: X25519 and the NIST curves for the
      // key exchange, and here an ECDSA certificate, as k3s and kubeadm's ECDSA option make. A JDK
      // server, like the API stand-in of the DRA tests, would settle for what a runtime without
      // the EC provider still has.
      assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "needs openssl");
      Path key = dir.resolve("api.key");
      Path crt = dir.resolve("api.crt");
      Command.run(
              dir,
              "openssl",
              "req",
              "-x509",
              "-newkey",
              "ec",
              "-pkeyopt",
              "ec_paramgen_curve:P-256",
              "-nodes",
              "-keyout",
              key.toString(),
              "-out",
              crt.toString(),
              "-days",
              "1",
              "-subj",
              "/CN=kube-apiserver",
              "-addext",
              "subjectAltName=IP:127.0.0.1")
          .ok(); // the certificate, or an AssertionError with openssl's output
      int port = RuntimeImage.freePort();
      Process server =
          new ProcessBuilder(
                  "openssl",
                  "s_server",
                  "-accept",
                  "127.0.0.1:" + port,
                  "-cert",
                  crt.toString(),
                  "-key",
                  key.toString(),
                  "-groups",
                  "X25519:P-256",
                  "-quiet")
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("s_server.txt").toFile())
              .start();
      try {
        Eventually.await(
            "openssl s_server listening", Duration.ofSeconds(30), () -> listening(port));

        assertThat(
                probe(RuntimeImage.prefix(), "handshake", Integer.toString(port), crt.toString()))
            .startsWith("handshake: TLSv1.3 ");
      } finally {
        server.destroyForcibly();
        server.waitFor();
      }
    }

    private static boolean listening(int port) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    /**
     * {@link RuntimeTlsProbe} run by the tree's launcher in the agent jar's place (the launcher's
     * flags, the runtime's own trust store), its one line of output.
     */
    private String probe(Path prefix, String... args) throws Exception {
      Path jarFile = dir.resolve("probe.jar");
      Manifest manifest = new Manifest();
      manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
      manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, RuntimeTlsProbe.class.getName());
      String entry = RuntimeTlsProbe.class.getName().replace('.', '/') + ".class";
      try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(jarFile), manifest);
          InputStream bytes = RuntimeTlsProbe.class.getResourceAsStream("/" + entry)) {
        jar.putNextEntry(new JarEntry(entry));
        bytes.transferTo(jar);
      }
      ProcessBuilder builder = launcher(prefix, args);
      builder.environment().put("ACCELD_JAR", jarFile.toString());
      builder.environment().remove("ACCELD_JVM_FLAGS");
      builder.environment().remove("ACCELD_JVM_EXTRA_FLAGS");
      builder.environment().remove("JAVA_HOME");
      builder.environment().remove("ACCELD_JAVA");
      Process run = builder.start();
      assertThat(Waits.exited(run, Duration.ofSeconds(60))).isTrue();
      assertThat(run.exitValue()).as(err()).isZero();
      return out().strip();
    }

    @Test
    void theTreeShipsTheBashCompletionTheRuntimeGeneratedAndItParses() throws Exception {
      Path completion = RuntimeImage.prefix().resolve("share/bash-completion/completions/acceld");

      assertThat(completion).isNotEmptyFile();
      assertThat(Files.readString(completion))
          .contains("complete -F _complete_acceld")
          .contains("--expect-devices");
      assertThat(Command.run(dir, "bash", "-n", completion.toString()).exitCode()).isZero();
    }

    @Test
    void aMovedTreeSaysItCannotUseItsArchiveAndStillRuns() throws Exception {
      Path moved = dir.resolve("elsewhere");
      Command.Result copy =
          Command.run(
              dir, "cp", "-a", RuntimeImage.prefix().toAbsolutePath().toString(), moved.toString());
      assertThat(copy.exitCode()).as(copy.toString()).isZero();

      Process version = launchWithJvmFlags(moved, "", "--version");
      assertThat(Waits.exited(version, Duration.ofSeconds(60))).isTrue();

      assertThat(version.exitValue()).as(err()).isZero();
      assertThat(out()).startsWith("acceld ");
      assertThat(err())
          .contains("not using the class-data archive " + moved.resolve("jre/lib/acceld.jsa"))
          .contains("made for " + RuntimeImage.prefix().toAbsolutePath().resolve("lib/acceld.jar"));
    }
  }
}
