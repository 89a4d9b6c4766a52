package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.MutableClock;
import io.acceld.util.OperatorError;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One agent per state directory: a second would overwrite the first one's leases. */
class LedgerStorageLockTest {
  @TempDir Path dir;

  @Test
  void aSecondOpenOfTheSameStateDirectoryIsRefusedAndTouchesNothing() throws Exception {
    MutableClock clock = new MutableClock();
    try (LedgerStorage first = LedgerStorage.open(dir, clock)) {
      Path lock = dir.resolve(LedgerStorage.LOCK_FILE);
      assertThat(Files.readString(lock).strip())
          .isEqualTo(Long.toString(ProcessHandle.current().pid()));

      assertThatThrownBy(() -> LedgerStorage.open(dir, clock))
          .isInstanceOfSatisfying(
              OperatorError.class,
              e -> assertThat(e.kind()).isEqualTo(OperatorError.Kind.ALREADY_RUNNING))
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("--state-dir " + dir);
      assertThat(lock).exists();
    }
    assertThat(dir.resolve(LedgerStorage.LOCK_FILE)).doesNotExist();
    LedgerStorage.open(dir, clock).close(); // free again once the first closed
  }
}
