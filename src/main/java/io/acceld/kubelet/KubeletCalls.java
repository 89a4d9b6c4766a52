package io.acceld.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls by which the kubelet shows it reached one of our servers after a Register:
 * {@code GetDevicePluginOptions} (inside Register) and {@code ListAndWatch} (right after it). The
 * registrar compares the counts before and after a Register to tell "the kubelet dialled us back"
 * from "the kubelet is stuck dialling a socket that is not there", which the kubelet only reports
 * after its 10 s dial timeout.
 */
final class KubeletCalls implements ServerInterceptor {
  private final AtomicLong options = new AtomicLong();
  private final AtomicLong listAndWatch = new AtomicLong();

  /** A point to compare later counts with. */
  record Mark(long options, long listAndWatch) {}

  Mark mark() {
    return new Mark(options.get(), listAndWatch.get());
  }

  /** Whether the kubelet called us at all since {@code mark}. */
  boolean dialledBackSince(Mark mark) {
    return options.get() > mark.options() || listAndWatch.get() > mark.listAndWatch();
  }

  /** Whether a ListAndWatch stream was opened since {@code mark}. */
  boolean streamOpenedSince(Mark mark) {
    return listAndWatch.get() > mark.listAndWatch();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    if (method.equals(DevicePluginGrpc.getGetDevicePluginOptionsMethod().getFullMethodName())) {
      options.incrementAndGet();
    } else if (method.equals(DevicePluginGrpc.getListAndWatchMethod().getFullMethodName())) {
      listAndWatch.incrementAndGet();
    }
    return next.startCall(call, headers);
  }
}
