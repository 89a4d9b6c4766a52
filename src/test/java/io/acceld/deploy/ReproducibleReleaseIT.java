package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release build is reproducible: a second build from the same jar gives the same bytes. A class
 * of its own, in another test JVM: its build runs while {@link RuntimeImage} makes the first, and
 * only the comparison waits for that one.
 */
class ReproducibleReleaseIT {
  @TempDir Path dir;

  @Test
  void aSecondBuildFromTheSameJarGivesTheSameBytes() throws IOException {
    Path second = dir.resolve("second");
    Command.run(
            Path.of("."),
            Map.of("JAVA_HOME", System.getProperty("java.home")),
            List.of(
                "sh",
                "-c",
                "umask 022 && exec bash \"$0\" \"$@\"",
                RuntimeImage.RELEASE_BUILD.toString(),
                RuntimeImage.jar().toString(),
                second.toString()),
            RuntimeImage.BUILD_TIME)
        .ok();
    assertThat(Files.readString(second.resolve("sha256sums")))
        .isEqualTo(Files.readString(RuntimeImage.release().resolve("sha256sums")));
  }
}
