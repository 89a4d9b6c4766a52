package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.DeviceChooser;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.HostPort;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.tasks.RecordingLauncher;
import io.acceld.mesos.tasks.RecordingStream;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.TestDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A master over a real, checkpointed ledger, a real task book in a temporary directory, a /proc
 * fixture tree, and a {@link RecordingLauncher} that reports through the book as the executor side
 * does.
 */
final class MasterFixture implements AutoCloseable {
  static final Duration HEARTBEAT = Duration.ofMillis(150);

  final Path root;
  final LedgerStorage storage;
  final DeviceLedger ledger;
  final AtomicBoolean mayOffer = new AtomicBoolean(true);
  final TaskBook book;
  final RecordingLauncher launcher;
  final MesosMaster master;

  MasterFixture(Path root, List<Device> devices) throws IOException {
    this(root, devices, new TopologyAwareChooser(), true);
  }

  MasterFixture(Path root, List<Device> devices, DeviceChooser chooser, boolean filterGpus)
      throws IOException {
    this.root = root;
    // The ledger as the agent keeps it: checkpointed in the state directory, restored on open.
    storage = LedgerStorage.open(root.resolve("state"), Clock.systemUTC());
    ledger = storage.ledger();
    publish(devices);
    Path proc = Files.createDirectories(root.resolve("proc"));
    StringBuilder cpuinfo = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      cpuinfo.append("processor\t: ").append(i).append("\nmodel name\t: Test CPU\n\n");
    }
    Files.writeString(proc.resolve("cpuinfo"), cpuinfo);
    Files.writeString(proc.resolve("meminfo"), "MemTotal:       16777216 kB\nMemFree: 1 kB\n");
    Path dir = root.resolve("state/mesos");
    book = TaskBook.open(dir, ledger, Clock.systemUTC(), Duration.ofSeconds(10));
    launcher = new RecordingLauncher(book);
    master =
        MesosMaster.open(
            new MasterSettings(
                dir,
                proc,
                root,
                new HostPort("127.0.0.1", 5050),
                "node-1",
                HEARTBEAT,
                "cpus:1;mem:1024;disk:0",
                filterGpus),
            ledger,
            chooser,
            new RuntimeSpecs(Path.of("/"), Optional.empty()),
            book,
            launcher,
            Clock.systemUTC(),
            mayOffer::get);
  }

  void publish(List<Device> devices) {
    Inventory next = TestDevices.inventory(devices);
    ledger.onChange(next, InventoryDiff.between(ledger.current().inventory(), next));
  }

  /** A subscribed framework, as a scheduler sees it: its ID, stream ID and events. */
  record Scheduler(FrameworkID id, String streamId, RecordingStream events, FrameworkInfo info) {}

  static FrameworkInfo.Builder framework(FrameworkInfo.Capability.Type... caps) {
    FrameworkInfo.Builder b = FrameworkInfo.newBuilder().setUser("alice").setName("test");
    for (FrameworkInfo.Capability.Type c : caps) {
      b.addCapabilities(FrameworkInfo.Capability.newBuilder().setType(c));
    }
    return b;
  }

  static FrameworkInfo.Builder gpuFramework() {
    return framework(FrameworkInfo.Capability.Type.GPU_RESOURCES);
  }

  Scheduler subscribe(FrameworkInfo.Builder info) {
    Call.Builder call =
        Call.newBuilder()
            .setType(Call.Type.SUBSCRIBE)
            .setSubscribe(Call.Subscribe.newBuilder().setFrameworkInfo(info));
    if (info.hasId()) {
      call.setFrameworkId(info.getId());
    }
    Reply reply = master.subscribe(call.build(), Optional.empty());
    assertThat(reply).isInstanceOf(Reply.Stream.class);
    Reply.Stream stream = (Reply.Stream) reply;
    RecordingStream events = new RecordingStream();
    stream.opened().accept(events);
    Event first = events.next();
    assertThat(first.getType()).as("first event: %s", first).isEqualTo(Event.Type.SUBSCRIBED);
    FrameworkID id = first.getSubscribed().getFrameworkId();
    return new Scheduler(id, stream.streamId().orElseThrow(), events, info.setId(id).build());
  }

  Reply call(Scheduler s, Call.Builder call) {
    return master.handle(
        call.setFrameworkId(s.id()).build(), Optional.of(s.streamId()), Optional.empty());
  }

  Offer nextOffer(Scheduler s) {
    return s.events().next(Event.Type.OFFERS).getOffers().getOffers(0);
  }

  AgentID agent() {
    return master.agentId();
  }

  static Resource scalar(String name, double v) {
    return Resource.newBuilder()
        .setName(name)
        .setType(Value.Type.SCALAR)
        .setScalar(Value.Scalar.newBuilder().setValue(v))
        .build();
  }

  TaskInfo.Builder task(String id, double gpus) {
    TaskInfo.Builder t =
        TaskInfo.newBuilder()
            .setName(id)
            .setTaskId(TaskID.newBuilder().setValue(id))
            .setAgentId(agent())
            .setCommand(CommandInfo.newBuilder().setValue("nvidia-smi"))
            .addResources(scalar("cpus", 1))
            .addResources(scalar("mem", 128));
    if (gpus > 0) {
      t.addResources(scalar("gpus", gpus));
    }
    return t;
  }

  static Call.Builder accept(Offer offer, TaskInfo.Builder... tasks) {
    Offer.Operation.Launch.Builder launch = Offer.Operation.Launch.newBuilder();
    for (TaskInfo.Builder t : tasks) {
      launch.addTaskInfos(t);
    }
    return accept(offer.getId(), launch);
  }

  static Call.Builder accept(OfferID offer, Offer.Operation.Launch.Builder launch) {
    return Call.newBuilder()
        .setType(Call.Type.ACCEPT)
        .setAccept(
            Call.Accept.newBuilder()
                .addOfferIds(offer)
                .addOperations(
                    Offer.Operation.newBuilder()
                        .setType(Offer.Operation.Type.LAUNCH)
                        .setLaunch(launch)));
  }

  /** The next UPDATE for {@code task}. */
  static TaskStatus nextUpdate(Scheduler s, String task) {
    return s.events()
        .next(
            e ->
                e.getType() == Event.Type.UPDATE
                    && e.getUpdate().getStatus().getTaskId().getValue().equals(task))
        .getUpdate()
        .getStatus();
  }

  Reply acknowledge(Scheduler s, TaskStatus status) {
    return call(
        s,
        Call.newBuilder()
            .setType(Call.Type.ACKNOWLEDGE)
            .setAcknowledge(
                Call.Acknowledge.newBuilder()
                    .setAgentId(status.getAgentId())
                    .setTaskId(status.getTaskId())
                    .setUuid(status.getUuid())));
  }

  static double amount(Offer offer, String name) {
    return offer.getResourcesList().stream()
        .filter(r -> r.getName().equals(name))
        .mapToDouble(r -> r.getScalar().getValue())
        .sum();
  }

  @Override
  public void close() {
    master.close();
    launcher.close();
    book.close();
    storage.close();
  }
}
