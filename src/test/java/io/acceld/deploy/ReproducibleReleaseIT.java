package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    RuntimeImage.buildRelease("022", second);
    assertThat(Files.readString(second.resolve("sha256sums")))
        .isEqualTo(Files.readString(RuntimeImage.release().resolve("sha256sums")));
  }
}
