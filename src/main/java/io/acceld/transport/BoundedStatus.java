package io.acceld.transport;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;

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

  /** {@code text} if it fits, else as much as fits with {@code ... (N more characters)}. */
  public static String bound(String text) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES) {
      return text;
    }
    // The note is at most 40 bytes; keep whole characters (no half surrogate pair) before it.
    int budget = MAX_BYTES - 40;
    int end = 0;
    int bytes = 0;
    while (end < text.length()) {
      int cp = text.codePointAt(end);
      int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > budget) {
        break;
      }
      bytes += size;
      end += Character.charCount(cp);
    }
    return text.substring(0, end) + "... (" + (text.length() - end) + " more characters)";
  }
}
