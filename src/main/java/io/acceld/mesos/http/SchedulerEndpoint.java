package io.acceld.mesos.http;

import io.acceld.proto.mesos.v1.scheduler.Call;
import java.util.Optional;

/**
 * The scheduler API behind {@code POST /api/v1/scheduler}. The HTTP layer has already answered 405,
 * 400 (no Content-Type, unparseable body), 415, 401 and 406 (SUBSCRIBE's Accept) in the reference's
 * order; everything from call validation on is the endpoint's.
 */
public interface SchedulerEndpoint {
  /**
   * A SUBSCRIBE call, already known to carry no {@code Mesos-Stream-Id}. Answers a {@link
   * Reply.Stream} with a fresh UUID stream ID, or a {@link Reply.Failure} when the call is invalid.
   */
  Reply subscribe(Call call, Optional<String> principal);

  /** Any other call, with the request's {@code Mesos-Stream-Id} header if it had one. */
  Reply handle(Call call, Optional<String> streamId, Optional<String> principal);
}
