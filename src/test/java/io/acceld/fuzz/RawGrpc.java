package io.acceld.fuzz;

import io.acceld.transport.RawBytes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.concurrent.TimeUnit;

/**
 * Calls a gRPC method with arbitrary bytes as the request message, which the generated stubs cannot
 * send: what a broken or hostile client on the plugin socket puts on the wire.
 */
final class RawGrpc {
  private RawGrpc() {}

  /**
   * {@code fullMethodName} (e.g. {@code v1beta1.DevicePlugin/Allocate}) as a bytes-in, bytes-out
   * call.
   */
  static MethodDescriptor<byte[], byte[]> unary(String fullMethodName) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethodName)
        .setRequestMarshaller(RawBytes.MARSHALLER)
        .setResponseMarshaller(RawBytes.MARSHALLER)
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
