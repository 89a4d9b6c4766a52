package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.CgroupLeftovers;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which user a task runs as, resolved through libc; these run as root (like CI). */
class TaskUserTest {
  static Containment containment(boolean switchUser, boolean allowRoot) {
    return Containment.create(
        new ContainmentSettings(
            Set.of(),
            switchUser,
            allowRoot,
            Path.of("/sys/fs/cgroup"),
            Path.of("/dev"),
            ContainmentSettings.DEFAULT_SETPRIV,
            CgroupLeftovers.PARENT));
  }

  @Test
  void theCommandsUserWinsOverTheFrameworks() {
    UserIdentity user =
        containment(true, false).taskUser(Optional.of("nobody"), "root").orElseThrow();
    assertThat(user.name()).isEqualTo("nobody");
    assertThat(user.uid()).isEqualTo(65534);
    assertThat(user.gid()).isEqualTo(65534);
    assertThat(user.groups()).contains(65534);
  }

  @Test
  void theFrameworksUserWhenTheCommandNamesNone() {
    assertThat(containment(true, false).taskUser(Optional.of(""), "nobody").orElseThrow().name())
        .isEqualTo("nobody");
  }

  @Test
  void anUnknownUserFailsNamingIt() {
    assertThatThrownBy(
            () -> containment(true, false).taskUser(Optional.of("no-such-user-4711"), "nobody"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'no-such-user-4711' does not exist");
  }

  @Test
  void aMalformedUserFailsBeforeLibcSeesIt() {
    assertThatThrownBy(() -> containment(true, false).taskUser(Optional.of("-r"), "nobody"))
        .hasMessageContaining("'-r' is not a valid user name");
  }

  @Test
  void noUserAtAllFails() {
    assertThatThrownBy(() -> containment(true, false).taskUser(Optional.empty(), ""))
        .hasMessageContaining("names no user");
  }

  @Test
  void rootIsRefusedUnlessAllowed() {
    assertThatThrownBy(() -> containment(true, false).taskUser(Optional.of("root"), "nobody"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--mesos-allow-root-tasks");
    assertThat(containment(true, true).taskUser(Optional.of("root"), "nobody").orElseThrow().uid())
        .isZero();
  }

  @Test
  void withoutSwitchingARootAgentsTasksNeedTheRootFlagToo() {
    assertThatThrownBy(() -> containment(false, false).taskUser(Optional.of("nobody"), "nobody"))
        .hasMessageContaining("--mesos-allow-root-tasks");
    assertThat(containment(false, true).taskUser(Optional.of("nobody"), "nobody")).isEmpty();
  }

  @Test
  void aRootIdentityIsRefusedAtCreateToo() {
    UserIdentity root = containment(true, true).taskUser(Optional.of("root"), "x").orElseThrow();
    assertThatThrownBy(
            () ->
                containment(true, false)
                    .create(
                        "c",
                        new Limits(64L << 20, 1, false),
                        java.util.List.of(),
                        Optional.of(root)))
        .hasMessageContaining("--mesos-allow-root-tasks");
  }
}
