package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UniquePathsTest {
  @TempDir Path dir;

  @Test
  void aTakenNameIsPassedOverForAnotherAndTheFileIsMadeExclusively() throws Exception {
    List<Path> tried = new ArrayList<>();
    Path made =
        UniquePaths.create(
            dir,
            ".state.",
            ".tmp",
            path -> {
              tried.add(path);
              if (tried.size() < 3) {
                Files.createFile(path); // someone else got there first
              }
              return Files.createFile(path);
            });

    assertThat(tried).hasSize(3).doesNotHaveDuplicates();
    assertThat(made).isEqualTo(tried.get(2)).exists();
    assertThat(made.getFileName().toString()).matches("\\.state\\.\\d+\\.tmp");
    assertThat(AtomicFiles.isTemporary(made)).isTrue();
  }

  @Test
  void givesUpSayingTheNameIsTakenWhenEveryNameIs() {
    List<Path> tried = new ArrayList<>();
    assertThatThrownBy(
            () ->
                UniquePaths.create(
                    dir,
                    "x",
                    "",
                    path -> {
                      tried.add(path);
                      throw new FileAlreadyExistsException(path.toString());
                    }))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(tried).hasSize(UniquePaths.ATTEMPTS);
  }
}
