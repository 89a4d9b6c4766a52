package io.acceld.transport;

import io.acceld.util.ClientText;
import io.acceld.util.RateLimitedLog;
import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.InputStream;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a request whose bytes do not parse as its protobuf message with {@code INVALID_ARGUMENT}
 * and one rate-limited warning. Left to gRPC, the parse error escapes into its executor: the client
 * gets {@code UNKNOWN "Application error processing RPC"} and the log an ERROR with a stack trace
 * per request, which a client can repeat as fast as it likes.
 *
 * <p>Each method's request marshaller is wrapped so that parsing never throws: it yields a {@link
 * Parsed} value, good or malformed, and the handler closes the call itself when it is malformed,
 * before the service ever sees it.
 */
final class MalformedRequests {
  private static final Logger log = LoggerFactory.getLogger(MalformedRequests.class);

  private final RateLimitedLog refusals = new RateLimitedLog(log, Duration.ofMinutes(1));

  /** A request's bytes: the message, or why they are not one. */
  sealed interface Parsed<Q> {
    record Message<Q>(Q value) implements Parsed<Q> {}

    record Malformed<Q>(String reason) implements Parsed<Q> {}
  }

  /** {@code service} with every method's requests parsed as described above. */
  ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServerServiceDefinition.Builder guarded =
        ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      guarded.addMethod(guard(method));
    }
    return guarded.build();
  }

  private <Q, R> ServerMethodDefinition<Parsed<Q>, R> guard(ServerMethodDefinition<Q, R> method) {
    MethodDescriptor<Q, R> descriptor = method.getMethodDescriptor();
    MethodDescriptor<Parsed<Q>, R> lenient =
        descriptor.toBuilder(
                new LenientMarshaller<>(descriptor.getRequestMarshaller()),
                descriptor.getResponseMarshaller())
            .build();
    return ServerMethodDefinition.create(
        lenient, new GuardedHandler<>(descriptor, method.getServerCallHandler()));
  }

  private static final class LenientMarshaller<Q>
      implements MethodDescriptor.Marshaller<Parsed<Q>> {
    private final MethodDescriptor.Marshaller<Q> strict;

    LenientMarshaller(MethodDescriptor.Marshaller<Q> strict) {
      this.strict = strict;
    }

    @Override
    public InputStream stream(Parsed<Q> value) {
      // requests are only ever parsed on the server; a server never serializes one
      throw new UnsupportedOperationException("a server does not send requests");
    }

    @Override
    public Parsed<Q> parse(InputStream stream) {
      try {
        return new Parsed.Message<>(strict.parse(stream));
      } catch (RuntimeException e) {
        // protobuf's marshaller wraps InvalidProtocolBufferException in a StatusRuntimeException
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return new Parsed.Malformed<>(String.valueOf(cause.getMessage()));
      }
    }
  }

  private final class GuardedHandler<Q, R> implements ServerCallHandler<Parsed<Q>, R> {
    private final MethodDescriptor<Q, R> descriptor;
    private final ServerCallHandler<Q, R> next;

    GuardedHandler(MethodDescriptor<Q, R> descriptor, ServerCallHandler<Q, R> next) {
      this.descriptor = descriptor;
      this.next = next;
    }

    @Override
    public ServerCall.Listener<Parsed<Q>> startCall(
        ServerCall<Parsed<Q>, R> call, Metadata headers) {
      ServerCall.Listener<Q> inner = next.startCall(new TypedCall<>(call, descriptor), headers);
      return new ServerCall.Listener<>() {
        private boolean refused;

        @Override
        public void onMessage(Parsed<Q> message) {
          if (refused) {
            return;
          }
          if (message instanceof Parsed.Message<Q> good) {
            inner.onMessage(good.value());
            return;
          }
          refused = true;
          String reason = ((Parsed.Malformed<Q>) message).reason();
          refusals.warn(
              "Refused a malformed {} request: {}",
              descriptor.getFullMethodName(),
              ClientText.quote(reason));
          call.close(
              Status.INVALID_ARGUMENT.withDescription(
                  "the request is not a valid "
                      + descriptor.getFullMethodName()
                      + " message: "
                      + reason),
              new Metadata());
        }

        @Override
        public void onHalfClose() {
          if (!refused) {
            inner.onHalfClose();
          }
        }

        @Override
        public void onCancel() {
          inner.onCancel();
        }

        @Override
        public void onComplete() {
          inner.onComplete();
        }

        @Override
        public void onReady() {
          if (!refused) {
            inner.onReady();
          }
        }
      };
    }
  }

  /** The call as the service sees it: typed by the original descriptor. */
  private static final class TypedCall<Q, R> extends ServerCall<Q, R> {
    private final ServerCall<Parsed<Q>, R> call;
    private final MethodDescriptor<Q, R> descriptor;

    TypedCall(ServerCall<Parsed<Q>, R> call, MethodDescriptor<Q, R> descriptor) {
      this.call = call;
      this.descriptor = descriptor;
    }

    @Override
    public void request(int numMessages) {
      call.request(numMessages);
    }

    @Override
    public void sendHeaders(Metadata headers) {
      call.sendHeaders(headers);
    }

    @Override
    public void sendMessage(R message) {
      call.sendMessage(message);
    }

    @Override
    public boolean isReady() {
      return call.isReady();
    }

    @Override
    public void close(Status status, Metadata trailers) {
      call.close(status, trailers);
    }

    @Override
    public boolean isCancelled() {
      return call.isCancelled();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      call.setMessageCompression(enabled);
    }

    @Override
    public void setCompression(String compressor) {
      call.setCompression(compressor);
    }

    @Override
    public void setOnReadyThreshold(int numBytes) {
      call.setOnReadyThreshold(numBytes);
    }

    @Override
    public Attributes getAttributes() {
      return call.getAttributes();
    }

    @Override
    public String getAuthority() {
      return call.getAuthority();
    }

    @Override
    public MethodDescriptor<Q, R> getMethodDescriptor() {
      return descriptor;
    }
  }
}
