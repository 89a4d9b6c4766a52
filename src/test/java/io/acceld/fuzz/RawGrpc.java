package io.acceld.fuzz;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Calls a gRPC method with arbitrary bytes as the request message, which the generated stubs cannot
 * send: what a broken or hostile client on the plugin socket puts on the wire.
 */
final class RawGrpc {
  private RawGrpc() {}

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /**
   * {@code fullMethodName} (e.g. {@code v1beta1.DevicePlugin/Allocate}) as a bytes-in, bytes-out
   * call.
   */
  static MethodDescriptor<byte[], byte[]> unary(String fullMethodName) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethodName)
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
  }

  /** The status the server answered {@code request} with (OK when it answered a message). */
  static Status call(Channel channel, MethodDescriptor<byte[], byte[]> method, byte[] request) {
    try {
      ClientCalls.blockingUnaryCall(
          channel, method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }
}
