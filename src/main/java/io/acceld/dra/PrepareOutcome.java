package io.acceld.dra;

import java.util.List;
import java.util.Objects;

/** What prepare did for one claim: its devices, or why it failed. */
public sealed interface PrepareOutcome {
  /**
   * The claim is prepared (or has nothing of this driver's: no devices).
   *
   * @param devices its devices on this node, in the order of the claim's results
   */
  record Prepared(List<PreparedDevice> devices) implements PrepareOutcome {
    public Prepared {
      devices = List.copyOf(devices);
    }
  }

  /**
   * The claim failed; nothing of it is leased or written.
   *
   * @param reason a short, fixed word for metrics ({@link PrepareFailure})
   * @param error the sentence the kubelet shows, naming the claim and what was wrong
   */
  record Failed(PrepareFailure reason, String error) implements PrepareOutcome {
    public Failed {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(error, "error");
    }
  }
}
