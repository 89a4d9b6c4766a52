package io.acceld.mesos.http;

import io.acceld.proto.mesos.v1.executor.Call;

/**
 * The executor API behind {@code POST /api/v1/executor}. The HTTP layer answers 405, 400, 415 and
 * 406 first, then 503 while {@link #recovering()}, then answers HEARTBEAT calls 202 itself, before
 * any lookup; the rest is the endpoint's.
 */
public interface ExecutorEndpoint {
  /** True until the agent's containers are recovered after a start: calls then get 503. */
  boolean recovering();

  /** A SUBSCRIBE call: a {@link Reply.Stream} (no stream ID) or a {@link Reply.Failure}. */
  Reply subscribe(Call call);

  /** UPDATE or MESSAGE (or a call of unknown type, which is 501 here). */
  Reply handle(Call call);
}
