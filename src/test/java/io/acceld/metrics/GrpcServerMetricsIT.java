package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.testing.Eventually;
import io.acceld.transport.UnixGrpc;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real calls over a real Unix socket are counted by method and status, and timed. */
class GrpcServerMetricsIT {
  private static final String ALLOCATE = "v1beta1.DevicePlugin/Allocate";
  private static final String OPTIONS = "v1beta1.DevicePlugin/GetDevicePluginOptions";
  private static final String LIST_AND_WATCH = "v1beta1.DevicePlugin/ListAndWatch";

  @TempDir Path dir;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final GrpcServerMetrics metrics = new GrpcServerMetrics();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private UnixGrpc grpc;
  private Server server;
  private ManagedChannel channel;
  private DevicePluginGrpc.DevicePluginBlockingStub stub;

  /** Allocate refuses empty requests; ListAndWatch sends one list and stays open. */
  private static final class TinyPlugin extends DevicePluginGrpc.DevicePluginImplBase {
    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
      out.onNext(DevicePluginOptions.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
      if (request.getContainerRequestsCount() == 0) {
        out.onError(Status.INVALID_ARGUMENT.withDescription("no containers").asException());
        return;
      }
      out.onNext(AllocateResponse.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
      out.onNext(ListAndWatchResponse.getDefaultInstance());
    }
  }

  @BeforeEach
  void start() throws Exception {
    metrics.bindTo(registry);
    grpc = new UnixGrpc("test-grpc-metrics", 1);
    Path socket = dir.resolve("plugin.sock");
    server = grpc.startServer(socket, List.of(new TinyPlugin()), List.of(metrics), executor);
    channel = grpc.channel(socket);
    stub = DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    grpc.close();
    executor.shutdownNow();
  }

  @Test
  void countsCallsByMethodAndStatusCode() {
    stub.getDevicePluginOptions(Empty.getDefaultInstance());
    stub.getDevicePluginOptions(Empty.getDefaultInstance());
    stub.allocate(
        AllocateRequest.newBuilder()
            .addContainerRequests(
                io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest.newBuilder()
                    .addDevicesIds("GPU-a"))
            .build());
    assertThatThrownBy(() -> stub.allocate(AllocateRequest.getDefaultInstance()))
        .isInstanceOf(StatusRuntimeException.class);

    // the server records on close, which can trail the client seeing the response
    Eventually.await("four calls recorded", () -> callsTotal() == 4.0);
    Exposition scrape = scrape();
    String calls = "acceld_grpc_server_calls_total";
    assertThat(scrape.value(calls, "method", OPTIONS, "code", "OK")).hasValue(2.0);
    assertThat(scrape.value(calls, "method", ALLOCATE, "code", "OK")).hasValue(1.0);
    assertThat(scrape.value(calls, "method", ALLOCATE, "code", "INVALID_ARGUMENT")).hasValue(1.0);
  }

  @Test
  void timesCallsInAHistogramWithModestBuckets() {
    stub.getDevicePluginOptions(Empty.getDefaultInstance());
    Eventually.await("call recorded", () -> callsTotal() == 1.0);

    Exposition scrape = scrape();
    String histogram = "acceld_grpc_server_call_duration_seconds";
    assertThat(scrape.value(histogram + "_count", "method", OPTIONS)).hasValue(1.0);
    assertThat(scrape.value(histogram + "_sum", "method", OPTIONS))
        .hasValueSatisfying(seconds -> assertThat(seconds).isPositive().isLessThan(10.0));
    assertThat(scrape.series(histogram + "_bucket"))
        .hasSize(GrpcServerMetrics.BUCKETS.length + 1) // + le="+Inf"
        .anySatisfy(
            b -> {
              assertThat(b.labels()).containsEntry("le", "1.0E-4");
              assertThat(b.value()).isBetween(0.0, 1.0);
            })
        .anySatisfy(
            b -> {
              assertThat(b.labels()).containsEntry("le", "10.0");
              assertThat(b.value()).isEqualTo(1.0);
            });
    assertThat(scrape.text()).contains("# TYPE " + histogram + " histogram");
  }

  @Test
  void aStreamTheClientAbandonsCountsAsCancelled() {
    Context.CancellableContext context = Context.current().withCancellation();
    context.run(
        () -> {
          Iterator<ListAndWatchResponse> stream =
              DevicePluginGrpc.newBlockingStub(channel).listAndWatch(Empty.getDefaultInstance());
          stream.next();
        });
    context.cancel(null);

    Eventually.await("cancellation recorded", () -> callsTotal() == 1.0);
    assertThat(scrape().value("acceld_grpc_server_calls_total", "method", LIST_AND_WATCH))
        .hasValue(1.0);
    assertThat(scrape().series("acceld_grpc_server_calls_total"))
        .singleElement()
        .satisfies(s -> assertThat(s.labels()).containsEntry("code", "CANCELLED"));
  }

  private double callsTotal() {
    return scrape().series("acceld_grpc_server_calls_total").stream()
        .mapToDouble(Exposition.Sample::value)
        .sum();
  }

  private Exposition scrape() {
    return Exposition.parse(registry.scrape());
  }
}
