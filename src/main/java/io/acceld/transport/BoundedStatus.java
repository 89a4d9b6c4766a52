package io.acceld.transport;

import io.acceld.util.BoundedText;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Bounds the message of every status the agent's gRPC servers send to {@link #MAX_BYTES} of UTF-8,
 * cutting it with a note of how much was left out. A status message travels in a header: one that
 * names a thousand containers' devices outgrows the client's header limit ("received initial
 * metadata size exceeds limit") and the kubelet is left with no reason at all.
 */
public final class BoundedStatus implements ServerInterceptor {
  /** The most a status message may hold, in UTF-8 bytes. */
  public static final int MAX_BYTES = 1024;

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    return next.startCall(
        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            String description = status.getDescription();
            super.close(
                description == null ? status : status.withDescription(bound(description)),
                trailers);
          }
        },
        headers);
  }

  /** {@code text} if it fits in {@link #MAX_BYTES}, else cut: see {@link BoundedText}. */
  public static String bound(String text) {
    return BoundedText.bound(text, MAX_BYTES);
  }
}
