package io.acceld.inventory;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One reason a device is Unhealthy, as structure: its kind, a closed set that metrics and policies
 * switch on, and a sentence for people, which logs and the devices listing show. Code never reads
 * the sentence back to learn the kind.
 *
 * <p>A problem that a health source raised says which source and since when; one that discovery
 * found carries no origin, because it lasts exactly as long as discovery keeps finding it.
 *
 * @param kind what kind of trouble
 * @param text a sentence for people, such as {@code XID 79 (GPU has fallen off the bus)}
 * @param origin the health source that raised it and when, for problems that outlive one scan
 */
public record HealthProblem(Kind kind, String text, Optional<Origin> origin) {

  /** What kind of trouble a device is in. */
  public enum Kind {
    /** A device node the device needs is absent from the device root. */
    DEVICE_NODE_MISSING,
    /** NVML reports the GPU lost, or the driver reported it fallen off the bus (XID 79). */
    GPU_LOST,
    /** A critical XID the policy does not ignore. */
    XID,
    /** An uncorrectable (double-bit) ECC error. */
    ECC,
    /** Retired pages or row remappings are pending: the GPU needs a reset. */
    RETIRED_PAGES,
    /** An NVML call about the device fails in a way that condemns it. */
    NVML_ERROR,
    /** Unhealthy for a reason that fits none of the kinds above. */
    OTHER,
    /** Unhealthy, but whoever said so gave no reason. */
    UNKNOWN
  }

  /**
   * Who raised a problem and when.
   *
   * @param source the health source, such as {@code XID} or {@code GPU_LOST}
   * @param since when the condition was observed
   */
  public record Origin(String source, Instant since) {
    public Origin {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(since, "since");
    }
  }

  /**
   * The one sentence for a GPU that NVML reports lost, whether discovery, a probe or the event
   * monitor saw it first.
   */
  public static final String GPU_LOST_TEXT = "NVML reports the GPU lost (GPU_IS_LOST)";

  public HealthProblem {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(origin, "origin");
  }

  public static HealthProblem of(Kind kind, String text) {
    return new HealthProblem(kind, text, Optional.empty());
  }

  /** NVML reports the GPU lost. */
  public static HealthProblem gpuLost() {
    return of(Kind.GPU_LOST, GPU_LOST_TEXT);
  }

  /** {@code node}, an absolute path, should exist and does not. */
  public static HealthProblem deviceNodeMissing(Path node) {
    return of(Kind.DEVICE_NODE_MISSING, "device node " + node + " is missing");
  }

  /** This problem as raised by {@code source} at {@code since}. */
  public HealthProblem raisedBy(String source, Instant since) {
    return new HealthProblem(kind, text, Optional.of(new Origin(source, since)));
  }

  /**
   * The sentence with its origin, when it has one: {@code XID 79 (...) [XID since 2026-...Z]}. This
   * is what {@link Device#healthReason()} joins.
   */
  public String describe() {
    return origin.map(o -> text + " [" + o.source() + " since " + o.since() + "]").orElse(text);
  }
}
