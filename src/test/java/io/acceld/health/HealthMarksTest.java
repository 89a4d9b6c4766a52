package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HealthMarksTest {
  /** A clock tests move by hand. */
  static final class ManualClock extends Clock {
    Instant now = Instant.parse("2026-11-29T12:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  final ManualClock clock = new ManualClock();

  @Test
  void xidMarksStayForeverByDefault() {
    HealthMarks marks = new HealthMarks(clock, Optional.empty());
    assertThat(marks.mark(HealthMark.xid("GPU-a", 79, clock.now))).isTrue();

    clock.now = clock.now.plus(Duration.ofDays(30));

    assertThat(marks.active()).containsKey("GPU-a");
    assertThat(marks.nextExpiry()).isEmpty();
  }

  @Test
  void aQuarantineEndsStickyMarksAndARepeatRestartsIt() {
    HealthMarks marks = new HealthMarks(clock, Optional.of(Duration.ofMinutes(10)));
    marks.mark(HealthMark.xid("GPU-a", 79, clock.now));
    clock.now = clock.now.plus(Duration.ofMinutes(8));
    assertThat(marks.mark(HealthMark.xid("GPU-a", 48, clock.now))).isFalse();

    clock.now = clock.now.plus(Duration.ofMinutes(8));
    assertThat(marks.active().get("GPU-a"))
        .singleElement()
        .satisfies(m -> assertThat(m.xid()).hasValue(48));
    assertThat(marks.nextExpiry()).contains(clock.now.plus(Duration.ofMinutes(2)));

    clock.now = clock.now.plus(Duration.ofMinutes(2));
    assertThat(marks.active()).isEmpty();
  }

  @Test
  void clearableMarksEndWhenCleared() {
    HealthMarks marks = new HealthMarks(clock, Optional.of(Duration.ofSeconds(1)));
    marks.mark(HealthMark.of("GPU-a", HealthSource.GPU_LOST, clock.now, "lost"));
    clock.now = clock.now.plus(Duration.ofHours(1));
    assertThat(marks.has("GPU-a", HealthSource.GPU_LOST)).isTrue();

    assertThat(marks.clear("GPU-a", HealthSource.GPU_LOST)).isTrue();
    assertThat(marks.clear("GPU-a", HealthSource.GPU_LOST)).isFalse();
    assertThat(marks.active()).isEmpty();
  }

  @Test
  void theOverlayMarksOnlyTheMarkedDeviceAndKeepsEveryReason() {
    Device a = TestDevices.nvidia(0, 0);
    Device b =
        TestDevices.nvidia(1, 0)
            .withProblems(List.of(HealthProblem.deviceNodeMissing(Path.of("/dev/nvidia1"))));
    Inventory discovered = TestDevices.inventory(List.of(a, b));
    HealthMarks marks = new HealthMarks(clock, Optional.empty());
    marks.mark(HealthMark.xid(b.id(), 79, clock.now));
    marks.mark(HealthMark.of(b.id(), HealthSource.ECC, clock.now, "double-bit ECC error"));

    Inventory shown = HealthOverlay.apply(discovered, marks.active());

    assertThat(shown.device(a.id()).orElseThrow().isHealthy()).isTrue();
    assertThat(shown.device(b.id()).orElseThrow().healthReason().orElseThrow())
        .contains("/dev/nvidia1 is missing")
        .contains("XID 79 (GPU has fallen off the bus)")
        .contains("double-bit ECC error");
    assertThat(shown.device(b.id()).orElseThrow().problems())
        .extracting(HealthProblem::kind)
        .containsExactly(
            HealthProblem.Kind.DEVICE_NODE_MISSING,
            HealthProblem.Kind.GPU_LOST,
            HealthProblem.Kind.ECC);
  }

  @Test
  void aMarkBecomesAProblemThatSaysWhoRaisedItAndSinceWhen() {
    HealthProblem xid = HealthMark.xid("GPU-a", 48, clock.now).problem();
    HealthProblem lost = HealthMark.gpuLost("GPU-a", clock.now).problem();

    assertThat(xid.kind()).isEqualTo(HealthProblem.Kind.XID);
    assertThat(xid.describe())
        .isEqualTo("XID 48 (Double Bit ECC Error) [XID since " + clock.now + "]");
    assertThat(lost.kind()).isEqualTo(HealthProblem.Kind.GPU_LOST);
    assertThat(lost.text()).isEqualTo(HealthProblem.gpuLost().text());
    assertThat(lost.origin()).contains(new HealthProblem.Origin("GPU_LOST", clock.now));
  }

  @Test
  void theXidPolicyStartsFromNvidiasApplicationErrors() {
    XidPolicy policy = XidPolicy.of(List.of(94), List.of(43));

    assertThat(policy.isIgnored(13)).isTrue();
    assertThat(policy.isIgnored(109)).isTrue();
    assertThat(policy.isIgnored(94)).isTrue();
    assertThat(policy.isIgnored(43)).isFalse();
    assertThat(policy.isIgnored(79)).isFalse();
  }
}
