package io.acceld.bench;

import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A ListAndWatch stream as the latency harnesses read it: every list with the instant it arrived,
 * waits for a list that matches, and the percentile line each harness prints.
 */
final class ListAndWatchLog {
  private record Stamped(long nanos, ListAndWatchResponse response) {}

  private final BlockingQueue<Stamped> updates = new LinkedBlockingQueue<>();
  private final Duration patience;

  private ListAndWatchLog(Duration patience) {
    this.patience = patience;
  }

  /** Opens ListAndWatch on {@code channel}, as the kubelet does, and records every list. */
  static ListAndWatchLog open(ManagedChannel channel, Duration patience) {
    ListAndWatchLog log = new ListAndWatchLog(patience);
    DevicePluginGrpc.newStub(channel)
        .listAndWatch(
            Empty.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(ListAndWatchResponse r) {
                log.updates.add(new Stamped(System.nanoTime(), r));
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    return log;
  }

  /** Forgets the lists received so far. */
  void clear() {
    updates.clear();
  }

  /** Waits for a list matching {@code condition}; returns when it was received. */
  long await(Predicate<ListAndWatchResponse> condition) throws InterruptedException {
    while (true) {
      Stamped s = updates.poll(patience.toNanos(), TimeUnit.NANOSECONDS);
      if (s == null) {
        throw new IllegalStateException("no matching ListAndWatch update within " + patience);
      }
      if (condition.test(s.response())) {
        return s.nanos();
      }
    }
  }

  static boolean allHealthy(ListAndWatchResponse r) {
    return r.getDevicesList().stream().allMatch(d -> d.getHealth().equals("Healthy"));
  }

  static boolean unhealthy(ListAndWatchResponse r, String id) {
    return r.getDevicesList().stream()
        .anyMatch(d -> d.getID().equals(id) && d.getHealth().equals("Unhealthy"));
  }

  /** One line: {@code what}, the count, p50, p90, p99 and max in milliseconds. */
  static void report(String what, List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    System.out.printf(
        "%-40s n=%d  p50=%.2f ms  p90=%.2f ms  p99=%.2f ms  max=%.2f ms%n",
        what,
        sorted.size(),
        percentile(sorted, 0.50),
        percentile(sorted, 0.90),
        percentile(sorted, 0.99),
        sorted.get(sorted.size() - 1) / 1e6);
  }

  private static double percentile(List<Long> sorted, double p) {
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
