package io.acceld.dra;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One NodePrepareResources or NodeUnprepareResources call, whatever its API version: every claim
 * named gets an entry (the kubelet fails a call that skips one), one claim's failure never fails
 * the call, and a call with more claims than {@link ClaimRequests#MAX_CLAIMS_PER_CALL} fails each
 * claim without looking any up.
 */
final class DraCalls {
  private final ClaimPreparer preparer;
  private final DraMetrics metrics;

  DraCalls(ClaimPreparer preparer, DraMetrics metrics) {
    this.preparer = preparer;
    this.metrics = metrics;
  }

  /** Each claim's outcome, by UID, in the order the kubelet named them. */
  Map<String, PrepareOutcome> prepare(List<ClaimRef> claims) {
    Map<String, PrepareOutcome> out = new LinkedHashMap<>();
    if (claims.size() > ClaimRequests.MAX_CLAIMS_PER_CALL) {
      String error = tooMany(claims.size());
      for (ClaimRef c : claims) {
        out.put(c.uid(), new PrepareOutcome.Failed(PrepareFailure.TOO_MANY_CLAIMS, error));
      }
      metrics.prepareFailed(PrepareFailure.TOO_MANY_CLAIMS);
      return out;
    }
    for (ClaimRef c : claims) {
      if (out.containsKey(c.uid())) {
        continue; // named twice: one entry answers both
      }
      long start = System.nanoTime();
      PrepareOutcome outcome = preparer.prepare(c);
      metrics.prepared(System.nanoTime() - start, outcome);
      out.put(c.uid(), outcome);
    }
    return out;
  }

  /** Each claim's error (empty for success), by UID. */
  Map<String, Optional<String>> unprepare(List<ClaimRef> claims) {
    Map<String, Optional<String>> out = new LinkedHashMap<>();
    if (claims.size() > ClaimRequests.MAX_CLAIMS_PER_CALL) {
      String error = tooMany(claims.size());
      claims.forEach(c -> out.put(c.uid(), Optional.of(error)));
      return out;
    }
    for (ClaimRef c : claims) {
      if (!out.containsKey(c.uid())) {
        long start = System.nanoTime();
        out.put(c.uid(), preparer.unprepare(c));
        metrics.unprepared(System.nanoTime() - start);
      }
    }
    return out;
  }

  private static String tooMany(int count) {
    return "the call names "
        + count
        + " claims; at most "
        + ClaimRequests.MAX_CLAIMS_PER_CALL
        + " are prepared or unprepared in one call";
  }
}
