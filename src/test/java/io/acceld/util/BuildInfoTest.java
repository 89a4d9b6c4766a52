package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build stamps the jar with the git revision it came from, through src/build/build-info.sh:
 * from a checkout or a fresh clone it is the commit, and without .git it is "unknown", never a
 * wrong commit.
 */
class BuildInfoTest {
  private static final Path SCRIPT = Path.of("src/build/build-info.sh").toAbsolutePath();
  private static final Map<String, String> GIT_USER =
      Map.of(
          "GIT_AUTHOR_NAME",
          "t",
          "GIT_AUTHOR_EMAIL",
          "t@example.com",
          "GIT_COMMITTER_NAME",
          "t",
          "GIT_COMMITTER_EMAIL",
          "t@example.com",
          "GIT_CONFIG_GLOBAL",
          "/dev/null",
          "GIT_CONFIG_NOSYSTEM",
          "1");

  @TempDir Path dir;

  @Test
  void theJarUnderTestCarriesThisCheckoutsRevisionAndWhenItWasBuilt() {
    BuildInfo build = BuildInfo.current();

    assertThat(build.version()).isNotEqualTo(BuildInfo.UNKNOWN).doesNotContain("${");
    assertThat(Instant.parse(build.buildDate())).isBefore(Instant.now().plusSeconds(1));
    Path repo = Path.of("").toAbsolutePath();
    Command.Result head = Command.run(repo, "git", "rev-parse", "--short=12", "HEAD");
    if (head.exitCode() == 0 && Files.exists(repo.resolve(".git"))) {
      assertThat(build.revision()).startsWith(head.output().strip());
    } else {
      assertThat(build.revision()).isEqualTo(BuildInfo.UNKNOWN);
    }
  }

  @Test
  void aFreshCloneIsStampedWithItsCommit() throws Exception {
    Path origin = commitOneFile(dir.resolve("origin"));
    String commit = git(origin, "rev-parse", "--short=12", "HEAD").strip();
    git(dir, "clone", "-q", origin.toString(), "clone");

    Properties built = stamp(dir.resolve("clone"), "");

    assertThat(built.getProperty("revision")).isEqualTo(commit).hasSize(12);
    assertThat(built.getProperty("version")).isEqualTo("9.9.9");
    assertThat(Instant.parse(built.getProperty("buildDate"))).isNotNull();
  }

  @Test
  void uncommittedChangesAreSaidSo() throws Exception {
    Path repo = commitOneFile(dir.resolve("repo"));
    String commit = git(repo, "rev-parse", "--short=12", "HEAD").strip();
    Files.writeString(repo.resolve("pom.xml"), "<changed/>");

    assertThat(stamp(repo, "").getProperty("revision")).isEqualTo(commit + "-dirty");
  }

  @Test
  void withoutGitItIsUnknownEvenInsideAnotherCheckout() throws Exception {
    Path outer = commitOneFile(dir.resolve("outer"));
    Path tarball = Files.createDirectories(outer.resolve("unpacked/acceld-0.1.0"));

    assertThat(stamp(tarball, "").getProperty("revision")).isEqualTo(BuildInfo.UNKNOWN);
    assertThat(stamp(Files.createDirectories(dir.resolve("plain")), "").getProperty("revision"))
        .isEqualTo(BuildInfo.UNKNOWN);
  }

  @Test
  void aRevisionGivenToTheBuildWins() throws Exception {
    Path plain = Files.createDirectories(dir.resolve("context"));

    assertThat(stamp(plain, "0123456789ab").getProperty("revision")).isEqualTo("0123456789ab");
  }

  @Test
  void sourceDateEpochFixesTheBuildDate() throws Exception {
    Path out = dir.resolve("out/acceld-version.properties");
    Command.run(
            dir,
            Map.of("SOURCE_DATE_EPOCH", "1700000000"),
            List.of("sh", SCRIPT.toString(), dir.toString(), out.toString(), "1.0.0"))
        .ok();

    assertThat(load(out).getProperty("buildDate")).isEqualTo("2023-11-14T22:13:20Z");
  }

  @Test
  void missingValuesReadAsUnknown() {
    BuildInfo none = new BuildInfo("1.0.0", BuildInfo.UNKNOWN, BuildInfo.UNKNOWN);

    assertThat(none.describe())
        .startsWith("acceld 1.0.0", "revision: unknown", "built: unknown")
        .last()
        .asString()
        .startsWith("java: " + Runtime.version());
  }

  private Path commitOneFile(Path repo) throws Exception {
    Files.createDirectories(repo);
    git(repo, "init", "-q");
    Files.writeString(repo.resolve("pom.xml"), "<project/>");
    git(repo, "add", "pom.xml");
    git(repo, "commit", "-q", "-m", "first");
    return repo;
  }

  private static String git(Path in, String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    return Command.run(in, GIT_USER, command).ok();
  }

  private Properties stamp(Path basedir, String revision) throws Exception {
    Path out = dir.resolve("out-" + System.nanoTime() + "/acceld-version.properties");
    Command.run(
            basedir,
            GIT_USER,
            List.of("sh", SCRIPT.toString(), basedir.toString(), out.toString(), "9.9.9", revision))
        .ok();
    return load(out);
  }

  private static Properties load(Path file) throws Exception {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }
}
