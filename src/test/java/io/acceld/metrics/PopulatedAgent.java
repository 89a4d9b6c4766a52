package io.acceld.metrics;

import io.acceld.config.DeviceExpectation;
import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.InventoryStore;
import io.acceld.ledger.Holder;
import io.acceld.mesos.MesosBridge;
import io.acceld.mesos.wire.MediaType;
import io.acceld.nvml.Nvml;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.telemetry.GpuTelemetrySampler;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.TestDevices;
import io.acceld.testing.mesos.BridgeOverLedger;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import io.acceld.transport.UnixGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An {@link AgentMetrics} with every family populated the way a busy node would have it: four NVML
 * GPUs (one lost, one shared by pods), an AMD GPU, an NVIDIA GPU without NVML that is unhealthy,
 * XIDs, kubelet events, real gRPC calls and NVML call counts, leases checkpointed to disk, and
 * {@code --expect-devices nvidia.com/gpu=8} unmet, and the Mesos bridge running with a subscribed
 * framework whose task holds the AMD GPU.
 */
final class PopulatedAgent implements AutoCloseable {
  private final NvmlDouble fake;
  private final Nvml nvml;
  private final InventoryStore store = new InventoryStore();
  private final GpuTelemetrySampler sampler;
  private final AgentMetrics metrics;
  private final io.acceld.ledger.LedgerStorage storage;
  private final io.acceld.ledger.DeviceLedger ledger;
  private final MesosBridge mesos;
  private MesosEventStream<Event> scheduler;

  PopulatedAgent(Path dir, DcgmCollector.LabelNames labels) throws Exception {
    storage =
        io.acceld.ledger.LedgerStorage.open(dir.resolve("state"), java.time.Clock.systemUTC());
    ledger = storage.ledger();
    fake = NvmlDouble.create(dir.resolve("nvml"), NvmlScenarios.h100s(4));
    nvml = fake.open();
    sampler = new GpuTelemetrySampler(nvml, store::current, Duration.ofSeconds(10));
    Map<String, Holder.KubeletPod> owners =
        Map.of(
            NvmlScenarios.uuid(0), new Holder.KubeletPod("ml", "trainer-0", "worker"),
            NvmlScenarios.uuid(1), new Holder.KubeletPod("research", "notebook-7f9c", "jupyter"));
    metrics =
        AgentMetrics.builder()
            .hostname("gpu-node-1")
            .nvmlCallStats(() -> Optional.of(nvml.callStats()))
            .telemetry(sampler::latest)
            .podOwners(id -> Optional.ofNullable(owners.get(id)))
            .ledger(ledger::current, Optional.of(storage.writer()))
            .expectedDevices(
                List.of(new DeviceExpectation("nvidia.com/gpu", false, 8)), store::current)
            .dcgmLabels(labels)
            .build();
    metrics.bindJvm(); // as the agent does once it has registered
    metrics.deviceHealth().follow(store);

    List<Device> healthy = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      healthy.add(GpuTelemetryIT.device(i));
    }
    healthy.add(TestDevices.amd(0, 1));
    healthy.add(TestDevices.mig(7, 7, "1g.10gb"));
    Device noNvml =
        TestDevices.nvidiaWithoutNvml(9)
            .withProblems(List.of(HealthProblem.deviceNodeMissing(Path.of("/dev/nvidia9"))));
    healthy.add(noNvml);
    store.publish(TestDevices.inventory(healthy));
    sampler.sampleNow();
    // The pods' GPUs and a Mesos task's AMD GPU are leased, so the ledger series are populated.
    ledger.onChange(store.current(), null);
    Map<io.acceld.inventory.ReplicaId, Holder.KubeletPod> inUse = new java.util.HashMap<>();
    owners.forEach((id, pod) -> inUse.put(io.acceld.inventory.ReplicaId.whole(id), pod));
    ledger.reconcileKubelet(inUse, java.time.Duration.ZERO);
    mesos = BridgeOverLedger.start(dir, dir.resolve("state"), ledger);
    mesos.metrics().bindTo(metrics.registry());
    // DRA's binders, as the agent binds them with --dra-driver set
    new io.acceld.dra.DraMetrics(ledger).bindTo(metrics.registry());
    new io.acceld.dra.apiserver.DraApiMetrics().bindTo(metrics.registry());
    runMesosTask("train.1", "amd.com/gpu");
    Eventually.await("the leases checkpointed", () -> storage.writer().writes() >= 1);

    // GPU 3 falls off the bus: health, XID and telemetry all notice
    fake.control().acceld_fake_set_lost(3, 1);
    List<Device> after = new ArrayList<>(healthy);
    after.set(3, healthy.get(3).withProblems(List.of(HealthProblem.gpuLost())));
    store.publish(TestDevices.inventory(after));
    metrics.xids().record("nvidia.com/gpu", NvmlScenarios.uuid(3), 79);
    metrics.xids().record("nvidia.com/gpu", NvmlScenarios.uuid(1), 13);
    metrics.ecc().recordCorrected("nvidia.com/gpu", NvmlScenarios.uuid(2));
    sampler.sampleNow();

    for (String resource : List.of("nvidia.com/gpu", "amd.com/gpu")) {
      metrics.kubelet().registered(resource, true);
      metrics.kubelet().streams(resource, 1);
      metrics.kubelet().allocated(resource, 1);
    }
    metrics.kubelet().allocated("nvidia.com/gpu", 2);
    grpcCalls(dir);
  }

  /**
   * A framework subscribed to the running bridge and a task of it holding one device of {@code
   * resource}, launched the way a scheduler does; the framework stays subscribed, its update
   * unacknowledged.
   */
  private void runMesosTask(String taskId, String resource) throws Exception {
    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + mesos.port(), MediaType.JSON);
    scheduler =
        client.subscribe(
            MesosCalls.subscribe(MesosCalls.framework("marathon", true), Optional.empty()));
    Duration wait = Duration.ofSeconds(20);
    FrameworkID id =
        scheduler.awaitEvent(Event.Type.SUBSCRIBED, wait).getSubscribed().getFrameworkId();
    Offer offer = scheduler.awaitEvent(Event.Type.OFFERS, wait).getOffers().getOffers(0);
    TaskInfo task =
        MesosCalls.commandTask(
            taskId,
            offer.getAgentId(),
            "exec sleep 300",
            List.of(MesosCalls.scalar("cpus", 0.1), MesosCalls.scalar(resource, 1)));
    int status =
        client
            .call(
                MesosCalls.accept(id, offer, List.of(task)),
                Map.of("Mesos-Stream-Id", scheduler.streamId().orElseThrow()))
            .status();
    if (status != 202) {
      throw new IllegalStateException("ACCEPT of the populated agent's task answered " + status);
    }
    var update = scheduler.awaitEvent(Event.Type.UPDATE, wait).getUpdate().getStatus();
    // TASK_STARTING comes first, and stays the head while unacknowledged
    if (update.getState() != io.acceld.proto.mesos.v1.TaskState.TASK_STARTING
        && update.getState() != io.acceld.proto.mesos.v1.TaskState.TASK_RUNNING) {
      throw new IllegalStateException(
          "the populated agent's Mesos task is " + update.getState() + ": " + update.getMessage());
    }
  }

  /** A few real calls through the interceptor, so the histogram and call counters exist. */
  private void grpcCalls(Path dir) throws Exception {
    ExecutorService executor = Executors.newCachedThreadPool();
    try (UnixGrpc grpc = new UnixGrpc("populated-agent", 1)) {
      Path socket = dir.resolve("plugin.sock");
      Server server =
          grpc.startServer(
              socket,
              List.of(
                  new DevicePluginGrpc.DevicePluginImplBase() {
                    @Override
                    public void getDevicePluginOptions(
                        Empty request, StreamObserver<DevicePluginOptions> out) {
                      out.onNext(DevicePluginOptions.getDefaultInstance());
                      out.onCompleted();
                    }
                  }),
              List.of(metrics.grpc()),
              executor);
      ManagedChannel channel = grpc.channel(socket);
      try {
        DevicePluginGrpc.DevicePluginBlockingStub stub =
            DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        stub.getDevicePluginOptions(Empty.getDefaultInstance());
        try {
          stub.allocate(AllocateRequest.getDefaultInstance()); // UNIMPLEMENTED here
        } catch (StatusRuntimeException expected) {
          assert expected.getStatus().getCode() == Status.Code.UNIMPLEMENTED;
        }
        Eventually.await(
            "both calls recorded",
            () ->
                metrics.registry().find(GrpcServerMetrics.CALLS).counters().stream()
                        .mapToDouble(c -> c.count())
                        .sum()
                    == 2.0);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } finally {
      executor.shutdownNow();
    }
  }

  AgentMetrics metrics() {
    return metrics;
  }

  String scrape() {
    return metrics.registry().scrape();
  }

  @Override
  public void close() {
    if (scheduler != null) {
      try {
        scheduler.close();
      } catch (java.io.IOException e) {
        // the stream's connection is ending anyway
      }
    }
    mesos.close(); // leaves the task's process running, as a restart of the agent would
    ProcessCleanup.killEverythingStarted();
    sampler.close();
    metrics.close();
    storage.close();
    nvml.close();
  }
}
