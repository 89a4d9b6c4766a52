package io.acceld.testing.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.acceld.proto.deviceplugin.v1beta1.Device;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.NUMANode;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerResponse;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.proto.deviceplugin.v1beta1.TopologyInfo;
import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import io.acceld.proto.pluginregistration.RegistrationStatusResponse;
import io.acceld.testing.kubelet.Registration.Mode;
import io.acceld.transport.UnixGrpc;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet double against a tiny fake device plugin over real Unix sockets: the double is only
 * useful if it refuses and accepts what the kubelet does, with the same texts.
 */
class KubeletDoubleTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String RESOURCE = "example.com/gpu";

  @TempDir Path tmp;
  private Path deviceDir;
  private UnixGrpc pluginGrpc;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() {
    deviceDir = tmp.resolve("device-plugins");
    pluginGrpc = new UnixGrpc("fake-plugin", 1);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    pluginGrpc.close();
  }

  private <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  private KubeletDouble kubelet(KubeletDouble.Builder builder) throws IOException {
    return closeLater(builder.start());
  }

  // -----------------------------------------------------------------------------------------------
  // Classic registration

  @Test
  void registrationSucceedsAndTheDeviceListArrives() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin plugin = plugin("fake.sock", options(true, true)).serve();

    // RegisterRequest.options says "nothing"; the kubelet must use GetDevicePluginOptions instead.
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, DevicePluginOptions.getDefaultInstance());

    Registration registration = kubelet.awaitRegistered(RESOURCE, WAIT);
    assertThat(registration.endpoint()).isEqualTo(deviceDir.resolve("fake.sock"));
    assertThat(registration.mode()).isEqualTo(Mode.CLASSIC);
    assertThat(registration.sequence()).isEqualTo(1);
    assertThat(registration.options()).isEqualTo(options(true, true));
    assertThat(registration.request().orElseThrow().getOptions())
        .isEqualTo(DevicePluginOptions.getDefaultInstance());

    List<DeviceState> devices = kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    assertThat(devices)
        .containsExactly(
            new DeviceState("gpu-0", "Healthy", true, List.of(0L)),
            new DeviceState("gpu-1", "Healthy", true, List.of()));
    assertThat(kubelet.capacity(RESOURCE)).isEqualTo(2);
    assertThat(kubelet.allocatable(RESOURCE)).isEqualTo(2);
    assertThat(kubelet.isConnected(RESOURCE)).isTrue();
    assertThat(kubelet.firstUpdateAt(RESOURCE)).isPresent();
    assertThat(kubelet.registrations()).containsEntry(RESOURCE, 1);
    assertThat(kubelet.calls(RESOURCE, PluginRpc.GET_DEVICE_PLUGIN_OPTIONS)).isEqualTo(1);
    assertThat(kubelet.calls(RESOURCE, PluginRpc.LIST_AND_WATCH)).isEqualTo(1);

    // Health is "Healthy" exactly; every other string counts as unhealthy.
    plugin.push(device("gpu-0", "Healthy", 0), device("gpu-1", "healthy", -1));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2 && !d.get(1).healthy(), WAIT);
    assertThat(kubelet.capacity(RESOURCE)).isEqualTo(2);
    assertThat(kubelet.allocatable(RESOURCE)).isEqualTo(1);
    assertThat(kubelet.updates(RESOURCE)).hasSize(2);

    // Each message replaces the set: a device left out disappears.
    plugin.push(device("gpu-1", "Healthy", -1));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 1, WAIT);
    assertThat(kubelet.capacity(RESOURCE)).isEqualTo(1);
  }

  @Test
  void actionsGoThroughTheDialledConnectionAndAreCounted() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin plugin = plugin("fake.sock", options(true, true)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, options(true, true));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);

    ContainerAllocateResponse one = kubelet.allocateOne(RESOURCE, List.of("gpu-1"));
    assertThat(one.getEnvsMap()).containsEntry("FAKE_DEVICES", "gpu-1");

    AllocateResponse two = kubelet.allocate(RESOURCE, List.of(List.of("gpu-0"), List.of("gpu-1")));
    assertThat(two.getContainerResponsesList())
        .extracting(r -> r.getEnvsMap().get("FAKE_DEVICES"))
        .containsExactly("gpu-0", "gpu-1");

    PreferredAllocationResponse preferred =
        kubelet.getPreferredAllocation(RESOURCE, List.of("gpu-1", "gpu-0"), List.of(), 1);
    assertThat(preferred.getContainerResponses(0).getDeviceIDsList()).containsExactly("gpu-0");

    kubelet.preStartContainer(RESOURCE, List.of("gpu-0"));
    assertThat(plugin.preStartDeadlines).hasSize(1);
    assertThat(plugin.preStartDeadlines.get(0)).isBetween(25_000L, 30_000L);
    assertThat(plugin.allocateHadDeadline).isFalse();

    assertThat(kubelet.options(RESOURCE)).isEqualTo(options(true, true));
    assertThat(kubelet.calls(PluginRpc.ALLOCATE)).isEqualTo(2);
    assertThat(kubelet.calls(PluginRpc.GET_PREFERRED_ALLOCATION)).isEqualTo(1);
    assertThat(kubelet.calls(PluginRpc.PRE_START_CONTAINER)).isEqualTo(1);
    assertThat(kubelet.calls(RESOURCE, PluginRpc.GET_DEVICE_PLUGIN_OPTIONS)).isEqualTo(2);
  }

  @Test
  void admissionAsksForAPreferredAllocationOnlyWhenOffered() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    plugin("with.sock", options(true, true)).serve();
    plugin("without.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "with.sock", "example.com/with", options(true, true));
    register(kubelet, "v1beta1", "without.sock", "example.com/without", options(false, false));
    kubelet.awaitDevices("example.com/with", d -> d.size() == 2, WAIT);
    kubelet.awaitDevices("example.com/without", d -> d.size() == 2, WAIT);

    ContainerAllocation with = kubelet.admitContainer("example.com/with", 1);
    assertThat(with.preferred()).contains(List.of("gpu-0"));
    assertThat(with.deviceIds()).containsExactly("gpu-0");
    assertThat(kubelet.startContainer(with)).isTrue();
    assertThat(kubelet.calls("example.com/with", PluginRpc.GET_PREFERRED_ALLOCATION)).isEqualTo(1);
    assertThat(kubelet.calls("example.com/with", PluginRpc.PRE_START_CONTAINER)).isEqualTo(1);

    ContainerAllocation without = kubelet.admitContainer("example.com/without", 2);
    assertThat(without.preferred()).isEmpty();
    assertThat(without.deviceIds()).containsExactlyInAnyOrder("gpu-0", "gpu-1");
    assertThat(kubelet.startContainer(without)).isFalse();
    assertThat(kubelet.calls("example.com/without", PluginRpc.GET_PREFERRED_ALLOCATION)).isZero();
    assertThat(kubelet.calls("example.com/without", PluginRpc.PRE_START_CONTAINER)).isZero();

    assertThatThrownBy(() -> kubelet.admitContainer("example.com/with", 2))
        .isInstanceOf(DeviceManagerException.class)
        .hasMessage(
            "requested number of devices unavailable for example.com/with. Requested: 2,"
                + " Available: 1");
    assertThatThrownBy(() -> kubelet.admitContainer("example.com/none", 1))
        .hasMessage("cannot allocate unregistered device example.com/none");
    kubelet.release(with);
    assertThat(kubelet.admitContainer("example.com/with", 2).deviceIds()).hasSize(2);
  }

  @Test
  void anUnsupportedVersionIsRejectedWithTheKubeletsText() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    plugin("fake.sock", options(false, false)).serve();

    assertThatThrownBy(() -> register(kubelet, "v1alpha2", "fake.sock", RESOURCE, null))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "requested API version \"v1alpha2\" is not supported by kubelet."
                          + " Supported version is [\"v1beta1\"]");
            });
    assertThat(kubelet.registerAttempts(RESOURCE)).isEqualTo(1);
    assertThat(kubelet.registrations()).isEmpty();
    assertThat(kubelet.calls(PluginRpc.GET_DEVICE_PLUGIN_OPTIONS)).isZero();
  }

  @Test
  void anInvalidResourceNameIsRejectedWithTheKubeletsText() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    plugin("fake.sock", options(false, false)).serve();

    for (String bad : List.of("gpu", "kubernetes.io/gpu", "example.com/-gpu")) {
      assertThatThrownBy(() -> register(kubelet, "v1beta1", "fake.sock", bad, null))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("the ResourceName \"" + bad + "\" is invalid");
              });
    }
    assertThat(kubelet.rejections()).hasSize(3);
    assertThat(kubelet.registrations()).isEmpty();
  }

  @Test
  void aSocketNobodyServesFailsTheDial() throws Exception {
    KubeletDouble kubelet =
        kubelet(KubeletDouble.builder(deviceDir).dialTimeout(Duration.ofMillis(300)));
    staleSocket(deviceDir.resolve("dead.sock"));

    for (String endpoint : List.of("dead.sock", "missing.sock")) {
      assertThatThrownBy(() -> register(kubelet, "v1beta1", endpoint, RESOURCE, null))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e ->
                  assertThat(e.getStatus().getDescription())
                      .isEqualTo("failed to dial device plugin: context deadline exceeded"));
    }
    assertThat(kubelet.registration(RESOURCE)).isEmpty();
  }

  @Test
  void aPluginWithoutTheDevicePluginServiceFailsGetDevicePluginOptions() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin registryOnly =
        plugin("fake.sock", options(false, false)).withInfo(info(RESOURCE, "")).registryOnly();
    registryOnly.serve();

    assertThatThrownBy(() -> register(kubelet, "v1beta1", "fake.sock", RESOURCE, null))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .startsWith(
                        "failed to get device plugin options: rpc error: code = Unimplemented"
                            + " desc = "));
  }

  @Test
  void anAbsoluteEndpointIsJoinedToTheDirectoryNotUsedAsIs() throws Exception {
    assertThat(KubeletDouble.goJoin(Path.of("/var/lib/kubelet/device-plugins"), "/tmp/x.sock"))
        .isEqualTo(Path.of("/var/lib/kubelet/device-plugins/tmp/x.sock"));
    assertThat(KubeletDouble.goJoin(Path.of("/d"), "../x.sock")).isEqualTo(Path.of("/x.sock"));

    KubeletDouble kubelet =
        kubelet(KubeletDouble.builder(deviceDir).dialTimeout(Duration.ofMillis(300)));
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    assertThatThrownBy(() -> register(kubelet, "v1beta1", plugin.socket.toString(), RESOURCE, null))
        .hasMessageContaining("failed to dial device plugin");
  }

  // -----------------------------------------------------------------------------------------------
  // Stream end, grace period, re-registration

  @Test
  void endingTheStreamMarksDevicesUnhealthyKeepingCapacity() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);

    plugin.endStreams(); // a clean EOF counts like a crash

    Status end = kubelet.awaitStreamEnded(RESOURCE, WAIT);
    assertThat(end.isOk()).isTrue();
    assertThat(kubelet.devices(RESOURCE)).allSatisfy(d -> assertThat(d.healthy()).isFalse());
    assertThat(kubelet.capacity(RESOURCE)).isEqualTo(2);
    assertThat(kubelet.allocatable(RESOURCE)).isZero();
    assertThat(kubelet.isConnected(RESOURCE)).isFalse();
    assertThat(kubelet.stoppedAt(RESOURCE)).isPresent();
    assertThat(kubelet.removedResources()).isEmpty();
    assertThatThrownBy(() -> kubelet.allocateOne(RESOURCE, List.of("gpu-0")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith("has been stopped");
    assertThatThrownBy(() -> kubelet.admitContainer(RESOURCE, 1))
        .hasMessage("no healthy devices present; cannot allocate unhealthy devices " + RESOURCE);
    assertThat(kubelet.calls(RESOURCE, PluginRpc.LIST_AND_WATCH)).isEqualTo(1); // no reconnect
    assertThat(plugin.listAndWatchCalls.get()).isEqualTo(1);
    assertThat(kubelet.streamEnds(RESOURCE))
        .singleElement()
        .satisfies(e -> assertThat(e.registration()).isEqualTo(1));
  }

  @Test
  void aStoppedResourceIsRemovedAfterTheGracePeriod() throws Exception {
    KubeletDouble kubelet =
        kubelet(KubeletDouble.builder(deviceDir).gracePeriod(Duration.ofMillis(200)));
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);

    plugin.close(); // the plugin dies

    kubelet.awaitCondition(
        "the resource removed", () -> kubelet.removedResources().contains(RESOURCE), WAIT);
    assertThat(kubelet.capacity(RESOURCE)).isZero();
    assertThat(kubelet.devices(RESOURCE)).isEmpty();
    assertThat(kubelet.registration(RESOURCE)).isEmpty(); // awaitRegistered waits for a new one
  }

  @Test
  void theLastRegistrationWinsAndAnOldStreamEndingDoesNotHurtIt() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin first = plugin("a.sock", options(false, false)).serve();
    plugin("b.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "a.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    register(kubelet, "v1beta1", "b.sock", RESOURCE, null);
    Registration second = kubelet.awaitRegistration(RESOURCE, r -> r.sequence() == 2, WAIT);
    assertThat(second.endpoint()).isEqualTo(deviceDir.resolve("b.sock"));
    kubelet.awaitCondition(
        "the second stream's list", () -> kubelet.updates(RESOURCE).size() == 2, WAIT);

    first.endStreams();
    kubelet.awaitCondition(
        "the first stream's end", () -> kubelet.streamEnds(RESOURCE).size() == 1, WAIT);

    assertThat(kubelet.streamEnds(RESOURCE).get(0).endpoint()).isEqualTo(first.socket);
    assertThat(kubelet.isConnected(RESOURCE)).isTrue();
    assertThat(kubelet.allocatable(RESOURCE)).isEqualTo(2);
  }

  @Test
  void theLegacyRaceLetsAnOldStreamKillTheNewRegistration() throws Exception {
    KubeletDouble kubelet =
        kubelet(KubeletDouble.builder(deviceDir).legacyReRegistrationRace(true));
    FakePlugin first = plugin("a.sock", options(false, false)).serve();
    FakePlugin second = plugin("b.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "a.sock", RESOURCE, null);
    register(kubelet, "v1beta1", "b.sock", RESOURCE, null);
    kubelet.awaitCondition("both lists", () -> kubelet.updates(RESOURCE).size() == 2, WAIT);

    first.endStreams();

    kubelet.awaitCondition("the resource stopped", () -> !kubelet.isConnected(RESOURCE), WAIT);
    assertThat(kubelet.allocatable(RESOURCE)).isZero();
    assertThat(second.closedConnection.get(5, TimeUnit.SECONDS)).isTrue();
  }

  // -----------------------------------------------------------------------------------------------
  // Restarts

  @Test
  void restartDeletesEverySocketAndRecreatesKubeletSockAsANewInode() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir).createDeprecationFile(true));
    Files.writeString(deviceDir.resolve(KubeletDouble.CHECKPOINT_FILE), "{}");
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    Object inodeBefore = inode(kubelet.kubeletSocket());

    kubelet.restart(Duration.ofMillis(20));

    assertThat(plugin.socket).doesNotExist();
    assertThat(kubelet.kubeletSocket()).exists();
    assertThat(inode(kubelet.kubeletSocket())).isNotEqualTo(inodeBefore);
    assertThat(deviceDir.resolve(KubeletDouble.CHECKPOINT_FILE)).exists();
    assertThat(deviceDir.resolve(KubeletDouble.DEPRECATION_FILE)).exists();
    assertThat(plugin.closedConnection.get(5, TimeUnit.SECONDS)).isTrue();
    // Seeded from the checkpoint: known, empty, stopped.
    assertThat(kubelet.capacity(RESOURCE)).isZero();
    assertThat(kubelet.allocatable(RESOURCE)).isZero();
    assertThat(kubelet.registration(RESOURCE)).isEmpty();
    assertThat(kubelet.stoppedAt(RESOURCE)).isPresent();
    assertThat(kubelet.isConnected(RESOURCE)).isFalse();
    assertThat(kubelet.removedResources()).isEmpty();

    // The plugin notices, serves again and re-registers.
    plugin.serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    Registration again = kubelet.awaitRegistered(RESOURCE, WAIT);
    assertThat(again.sequence()).isEqualTo(2);
    kubelet.awaitCondition("devices again", () -> kubelet.allocatable(RESOURCE) == 2, WAIT);
    assertThat(kubelet.restarts()).isEqualTo(1);
  }

  @Test
  void relistenOnlyRecreatesKubeletSockAndKeepsPlugins() throws Exception {
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir));
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    Object inodeBefore = inode(kubelet.kubeletSocket());

    kubelet.relistenOnly();

    assertThat(inode(kubelet.kubeletSocket())).isNotEqualTo(inodeBefore);
    assertThat(plugin.socket).exists();
    assertThat(kubelet.isConnected(RESOURCE)).isTrue();
    assertThat(plugin.closedConnection).isNotDone();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null); // the new socket serves
    assertThat(kubelet.awaitRegistration(RESOURCE, r -> r.sequence() == 2, WAIT)).isNotNull();
  }

  @Test
  void startLateCreatesKubeletSockOnlyOnListenAndCleansSocketsThen() throws Exception {
    KubeletDouble kubelet = closeLater(KubeletDouble.builder(deviceDir).startLate());
    assertThat(deviceDir).isDirectory();
    assertThat(kubelet.kubeletSocket()).doesNotExist();
    assertThat(kubelet.isListening()).isFalse();
    staleSocket(deviceDir.resolve("early.sock"));
    Files.writeString(deviceDir.resolve("notes.txt"), "kept");

    kubelet.listen();

    assertThat(kubelet.kubeletSocket()).exists();
    assertThat(kubelet.isListening()).isTrue();
    assertThat(deviceDir.resolve("early.sock")).doesNotExist();
    assertThat(deviceDir.resolve("notes.txt")).exists();
  }

  @Test
  void closeStopsEveryThreadAndRemovesKubeletSock() throws Exception {
    KubeletDouble kubelet =
        kubelet(KubeletDouble.builder(deviceDir).pluginsRegistryDir(tmp.resolve("reg")));
    FakePlugin plugin = plugin("fake.sock", options(false, false)).serve();
    register(kubelet, "v1beta1", "fake.sock", RESOURCE, null);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    assertThat(kubelet.liveThreads()).isNotEmpty();

    kubelet.close();

    assertThat(kubelet.liveThreads()).isEmpty();
    assertThat(kubelet.kubeletSocket()).doesNotExist();
    assertThat(plugin.closedConnection.get(5, TimeUnit.SECONDS)).isTrue();
    kubelet.close(); // idempotent
  }

  // -----------------------------------------------------------------------------------------------
  // Plugin-watcher mode

  @Test
  void thePluginWatcherRegistersASocketServingBothServices() throws Exception {
    Path registry = tmp.resolve("plugins_registry");
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir).pluginsRegistryDir(registry));
    FakePlugin plugin =
        plugin(registry.resolve("fake-gpu.sock"), options(false, true))
            .withInfo(info(RESOURCE, ""));
    plugin.serve();

    Registration registration = kubelet.awaitRegistered(RESOURCE, WAIT);
    assertThat(registration.mode()).isEqualTo(Mode.PLUGIN_WATCHER);
    assertThat(registration.endpoint()).isEqualTo(plugin.socket);
    assertThat(registration.registrySocket()).contains(plugin.socket);
    assertThat(registration.options()).isEqualTo(options(false, true));
    RegistrationStatus status = plugin.statuses.poll(10, TimeUnit.SECONDS);
    assertThat(status).isEqualTo(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    assertThat(kubelet.awaitNotification(WatcherNotification::registered, WAIT).socket())
        .isEqualTo(plugin.socket);
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);
    assertThat(kubelet.calls(PluginRpc.GET_INFO)).isEqualTo(1);

    // Removing the socket deregisters.
    plugin.close();
    assertThat(plugin.socket).doesNotExist();
    kubelet.awaitCondition("deregistration", () -> !kubelet.isConnected(RESOURCE), WAIT);
    assertThat(kubelet.allocatable(RESOURCE)).isZero();
    assertThat(kubelet.capacity(RESOURCE)).isEqualTo(2);

    // A new socket registers again.
    plugin.serve();
    kubelet.awaitRegistration(RESOURCE, r -> r.sequence() == 2, WAIT);
    assertThat(plugin.statuses.poll(10, TimeUnit.SECONDS).getPluginRegistered()).isTrue();
    kubelet.awaitCondition("devices again", () -> kubelet.allocatable(RESOURCE) == 2, WAIT);

    // A restarted kubelet deletes nothing in plugins_registry and registers what it finds there.
    kubelet.restart(Duration.ZERO);
    assertThat(plugin.socket).exists();
    kubelet.awaitRegistration(RESOURCE, r -> r.sequence() == 3, WAIT);
    assertThat(plugin.statuses.poll(10, TimeUnit.SECONDS).getPluginRegistered()).isTrue();
    kubelet.awaitCondition("devices again", () -> kubelet.allocatable(RESOURCE) == 2, WAIT);
  }

  @Test
  void thePluginWatcherUsesAnAbsoluteInfoEndpointAndIgnoresDotSockets() throws Exception {
    Path registry = tmp.resolve("plugins_registry");
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir).pluginsRegistryDir(registry));
    Files.createDirectories(registry);
    staleSocket(registry.resolve(".hidden.sock"));
    FakePlugin devicePlugin = plugin("dp.sock", options(false, false)).serve();
    FakePlugin registrar =
        plugin(registry.resolve("reg.sock"), options(false, false))
            .withInfo(info(RESOURCE, devicePlugin.socket.toString()))
            .registryOnly();
    registrar.serve();

    Registration registration = kubelet.awaitRegistered(RESOURCE, WAIT);
    assertThat(registration.endpoint()).isEqualTo(devicePlugin.socket);
    assertThat(registrar.statuses.poll(10, TimeUnit.SECONDS).getPluginRegistered()).isTrue();
    assertThat(kubelet.watcherErrors()).isEmpty();
  }

  @Test
  void aPluginWatcherSocketWithAnInvalidNameIsToldWhy() throws Exception {
    Path registry = tmp.resolve("plugins_registry");
    KubeletDouble kubelet = kubelet(KubeletDouble.builder(deviceDir).pluginsRegistryDir(registry));
    FakePlugin plugin =
        plugin(registry.resolve("bad.sock"), options(false, false)).withInfo(info("gpu", ""));
    plugin.serve();

    RegistrationStatus status = plugin.statuses.poll(10, TimeUnit.SECONDS);
    assertThat(status.getPluginRegistered()).isFalse();
    assertThat(status.getError())
        .isEqualTo(
            "RegisterPlugin error -- plugin validation failed with err: invalid name of device"
                + " plugin socket: the ResourceName \"gpu\" is invalid");
    assertThat(kubelet.registrations()).isEmpty();
    RegisterRejection rejection =
        kubelet.awaitRejection(r -> r.mode() == Mode.PLUGIN_WATCHER, WAIT);
    assertThat(rejection.message()).isEqualTo(status.getError());
    assertThat(rejection.endpoint()).isEqualTo(plugin.socket.toString());
  }

  @Test
  void aPluginWatcherSocketWithoutV1beta1IsToldWhy() throws Exception {
    Path registry = tmp.resolve("plugins_registry");
    kubelet(KubeletDouble.builder(deviceDir).pluginsRegistryDir(registry));
    FakePlugin plugin =
        plugin(registry.resolve("old.sock"), options(false, false))
            .withInfo(
                info(RESOURCE, "").toBuilder()
                    .clearSupportedVersions()
                    .addSupportedVersions("v1alpha2")
                    .build());
    plugin.serve();

    RegistrationStatus status = plugin.statuses.poll(10, TimeUnit.SECONDS);
    assertThat(status.getError())
        .isEqualTo(
            "RegisterPlugin error -- plugin validation failed with err: manager version,"
                + " v1beta1, is not among plugin supported versions [v1alpha2]");
  }

  // -----------------------------------------------------------------------------------------------
  // The fake plugin and helpers

  private static DevicePluginOptions options(boolean preStart, boolean preferred) {
    return DevicePluginOptions.newBuilder()
        .setPreStartRequired(preStart)
        .setGetPreferredAllocationAvailable(preferred)
        .build();
  }

  private static PluginInfo info(String name, String endpoint) {
    return PluginInfo.newBuilder()
        .setType("DevicePlugin")
        .setName(name)
        .setEndpoint(endpoint)
        .addSupportedVersions("v1beta1")
        .build();
  }

  private static Device device(String id, String health, long numa) {
    Device.Builder d = Device.newBuilder().setID(id).setHealth(health);
    if (numa >= 0) {
      d.setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(numa)));
    }
    return d.build();
  }

  private FakePlugin plugin(String name, DevicePluginOptions options) {
    return plugin(deviceDir.resolve(name), options);
  }

  private FakePlugin plugin(Path socket, DevicePluginOptions options) {
    return closeLater(new FakePlugin(pluginGrpc, socket, options));
  }

  /** Register as a plugin would, over kubelet.sock. */
  private void register(
      KubeletDouble kubelet,
      String version,
      String endpoint,
      String resource,
      DevicePluginOptions options) {
    ManagedChannel channel = pluginGrpc.channel(kubelet.kubeletSocket());
    try {
      RegisterRequest.Builder request =
          RegisterRequest.newBuilder()
              .setVersion(version)
              .setEndpoint(endpoint)
              .setResourceName(resource);
      if (options != null) {
        request.setOptions(options);
      }
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(20, TimeUnit.SECONDS)
          .register(request.build());
    } finally {
      channel.shutdownNow();
    }
  }

  /** A socket file with no listener: bound by the JDK, which leaves the file behind on close. */
  private static void staleSocket(Path path) throws IOException {
    Files.createDirectories(path.getParent());
    try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.bind(UnixDomainSocketAddress.of(path));
    }
    assertThat(SocketFiles.isSocket(path)).isTrue();
  }

  private static Object inode(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
  }

  /**
   * A device plugin with two devices (gpu-0 on NUMA node 0, gpu-1 without topology). Allocate
   * answers FAKE_DEVICES=<ids> per container; GetPreferredAllocation the first {@code size}
   * available IDs in sorted order. Optionally serves pluginregistration on the same socket.
   */
  static final class FakePlugin implements AutoCloseable {
    final Path socket;
    final DevicePluginOptions options;
    final BlockingQueue<RegistrationStatus> statuses = new LinkedBlockingQueue<>();
    final List<Long> preStartDeadlines = new CopyOnWriteArrayList<>();
    final AtomicInteger listAndWatchCalls = new AtomicInteger();
    volatile boolean allocateHadDeadline;

    /** Completes when the kubelet side cancels a ListAndWatch (connection closed). */
    volatile CompletableFuture<Boolean> closedConnection = new CompletableFuture<>();

    private final UnixGrpc grpc;
    private final List<ServerCallStreamObserver<ListAndWatchResponse>> streams = new ArrayList<>();
    private List<Device> devices =
        List.of(device("gpu-0", "Healthy", 0), device("gpu-1", "Healthy", -1));
    private PluginInfo info;
    private boolean devicePluginService = true;
    private Server server;

    FakePlugin(UnixGrpc grpc, Path socket, DevicePluginOptions options) {
      this.grpc = grpc;
      this.socket = socket;
      this.options = options;
    }

    FakePlugin withInfo(PluginInfo info) {
      this.info = info;
      return this;
    }

    FakePlugin registryOnly() {
      this.devicePluginService = false;
      return this;
    }

    synchronized FakePlugin serve() throws IOException {
      Files.createDirectories(socket.getParent());
      Files.deleteIfExists(socket);
      closedConnection = new CompletableFuture<>();
      List<BindableService> services = new ArrayList<>();
      if (devicePluginService) {
        services.add(new DevicePluginService());
      }
      if (info != null) {
        services.add(new RegistrationService());
      }
      server = grpc.startServer(socket, services, List.of(), Runnable::run);
      return this;
    }

    synchronized void push(Device... next) {
      devices = List.of(next);
      for (StreamObserver<ListAndWatchResponse> s : streams) {
        s.onNext(ListAndWatchResponse.newBuilder().addAllDevices(devices).build());
      }
    }

    synchronized void endStreams() {
      for (StreamObserver<ListAndWatchResponse> s : streams) {
        s.onCompleted();
      }
      streams.clear();
    }

    @Override
    public void close() throws InterruptedException {
      Server s;
      synchronized (this) {
        s = server;
        server = null;
        streams.clear();
      }
      if (s != null) {
        s.shutdownNow();
        s.awaitTermination(5, TimeUnit.SECONDS);
      }
    }

    private final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {
      @Override
      public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
        out.onNext(options);
        out.onCompleted();
      }

      @Override
      public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
        listAndWatchCalls.incrementAndGet();
        ServerCallStreamObserver<ListAndWatchResponse> stream =
            (ServerCallStreamObserver<ListAndWatchResponse>) out;
        CompletableFuture<Boolean> closed = closedConnection;
        stream.setOnCancelHandler(() -> closed.complete(true));
        synchronized (FakePlugin.this) {
          streams.add(stream);
          stream.onNext(ListAndWatchResponse.newBuilder().addAllDevices(devices).build());
        }
      }

      @Override
      public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        allocateHadDeadline = io.grpc.Context.current().getDeadline() != null;
        AllocateResponse.Builder response = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
          response.addContainerResponses(
              ContainerAllocateResponse.newBuilder()
                  .putEnvs("FAKE_DEVICES", String.join(",", c.getDevicesIdsList())));
        }
        out.onNext(response.build());
        out.onCompleted();
      }

      @Override
      public void getPreferredAllocation(
          PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
        PreferredAllocationResponse.Builder response = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
          response.addContainerResponses(
              ContainerPreferredAllocationResponse.newBuilder()
                  .addAllDeviceIDs(
                      c.getAvailableDeviceIDsList().stream()
                          .sorted()
                          .limit(c.getAllocationSize())
                          .collect(Collectors.toList())));
        }
        out.onNext(response.build());
        out.onCompleted();
      }

      @Override
      public void preStartContainer(
          PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        io.grpc.Deadline deadline = io.grpc.Context.current().getDeadline();
        preStartDeadlines.add(
            deadline == null ? -1 : deadline.timeRemaining(TimeUnit.MILLISECONDS));
        out.onNext(PreStartContainerResponse.getDefaultInstance());
        out.onCompleted();
      }
    }

    private final class RegistrationService
        extends io.acceld.proto.pluginregistration.RegistrationGrpc.RegistrationImplBase {
      @Override
      public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
        out.onNext(info);
        out.onCompleted();
      }

      @Override
      public void notifyRegistrationStatus(
          RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
        statuses.add(status);
        out.onNext(RegistrationStatusResponse.getDefaultInstance());
        out.onCompleted();
      }
    }
  }
}
