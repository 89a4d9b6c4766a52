package io.acceld.dra;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.Topology;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.acceld.transport.UnixGrpc;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A node with two H100s, a ledger over a state directory, and the DRA kubelet side serving in
 * temporary kubelet directories; restartable over the same state, as the agent restarts.
 */
final class DraNode implements AutoCloseable {
  static final String DRIVER = "gpu.acceld.io";
  static final String NODE = "node-a";

  final Path root;
  final DraSettings settings;
  final InMemoryClaims claims = new InMemoryClaims();
  final InventoryStore inventory = new InventoryStore();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final MutableClock clock = new MutableClock();
  List<Device> devices = List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 1));
  LedgerStorage storage;
  DraKubeletSide side;
  private UnixGrpc grpc;

  DraNode(Path root, Duration healthPeriod) throws Exception {
    this.root = root;
    this.settings =
        new DraSettings(
            DRIVER,
            NODE,
            root.resolve("plugins_registry"),
            root.resolve("plugins"),
            root.resolve("cdi"),
            Path.of("/dev"),
            healthPeriod);
    publish();
    start();
  }

  DraNode(Path root) throws Exception {
    this(root, Duration.ofSeconds(10));
  }

  DeviceLedger ledger() {
    return storage.ledger();
  }

  void start() throws Exception {
    storage = LedgerStorage.open(root.resolve("state"), clock);
    storage
        .ledger()
        .onChange(inventory.current(), InventoryDiff.between(Inventory.EMPTY, inventory.current()));
    inventory.subscribe(storage.ledger());
    // The agent's event loop, which the side borrows; named for the side, so that the tests of
    // threads left behind see it too.
    grpc = new UnixGrpc("acceld-dra-test-grpc", 1);
    side =
        DraKubeletSide.start(settings, storage.ledger(), inventory, claims, registry, clock, grpc);
  }

  /** Stops the side and the ledger, as the agent's exit does. */
  void stop() {
    side.close();
    grpc.close();
    inventory.unsubscribe(storage.ledger());
    storage.close();
  }

  void restart() throws Exception {
    stop();
    start();
  }

  void publish() {
    inventory.publish(new Inventory(devices, NodeInfo.EMPTY, Topology.EMPTY));
  }

  /** Marks GPU {@code index} Unhealthy with {@code reason}, as an XID would. */
  void unhealthy(int index, String reason) {
    List<Device> next = new ArrayList<>(devices);
    next.set(index, next.get(index).withHealth(Health.UNHEALTHY, Optional.of(reason)));
    devices = List.copyOf(next);
    publish();
  }

  static AllocatedClaim.Result result(String request, String device) {
    return new AllocatedClaim.Result(request, DRIVER, NODE, device);
  }

  @Override
  public void close() {
    stop();
  }
}
