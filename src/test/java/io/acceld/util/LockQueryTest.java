package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.LockHolder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Asking who holds a {@link PidLock} without taking it, against a holder in another process. */
class LockQueryTest {
  @TempDir Path dir;

  @Test
  void noFileAndAStaleFileAreNotHeld() throws Exception {
    Path file = dir.resolve("acceld.lock");
    assertThat(LockQuery.of(file)).isInstanceOf(LockQuery.State.NoFile.class);
    assertThat(Files.exists(file)).as("asking creates nothing").isFalse();

    Files.writeString(file, "4242\n");
    assertThat(LockQuery.of(file)).isEqualTo(new LockQuery.State.Free("4242"));
  }

  @Test
  void aLiveHolderIsNamedAndKeepsItsLockWhileAsked() throws Exception {
    Path file = dir.resolve("acceld.lock");
    try (LockHolder holder = LockHolder.start(file)) {
      LockQuery.State first = LockQuery.of(file);
      LockQuery.State second = LockQuery.of(file);

      String says = String.valueOf(holder.pid());
      assertThat(first).isEqualTo(new LockQuery.State.Held(holder.pid(), says));
      assertThat(second).isEqualTo(first);
      // Asking took nothing: an agent starting now still finds the lock held, by that holder.
      assertThatThrownBy(() -> PidLock.acquire(file))
          .isInstanceOf(PidLock.HeldElsewhere.class)
          .hasMessageContaining("pid " + holder.pid());
    }
    assertThat(LockQuery.of(file)).isInstanceOf(LockQuery.State.Free.class);
  }
}
