package io.acceld.cli;

import io.acceld.config.ConfigException;
import io.acceld.config.Settings;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.Device;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.NUMANode;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.OperatorError;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code acceld kubelet-probe}: an operator's kubelet. Dials a device-plugin socket the way the
 * kubelet does (GetDevicePluginOptions, the first ListAndWatch list, and on request
 * GetPreferredAllocation and Allocate) and prints what came back, to answer "is the plugin serving
 * what I think?" on a node, or to see the kubelet side of {@code run --simulate}.
 */
@Command(
    addMethodSubcommands = false,
    name = "kubelet-probe",
    description = {
      "Dial a device-plugin socket as the kubelet does and print its options and devices (health,"
          + " NUMA topology); with --allocate N, a preferred allocation and an Allocate response.",
      "An Allocate through this probe leases the devices in the agent's ledger like a kubelet's"
          + " would: with no pod using them, the lease expires after the agent's"
          + " --kubelet-pending-lease-ttl (default 2m)."
    },
    mixinStandardHelpOptions = true)
final class KubeletProbeCommand implements Callable<Integer> {
  private static final long TIMEOUT_SECONDS = 10;

  @Parameters(
      paramLabel = "SOCKET|RESOURCE",
      description =
          "A plugin socket path, or a resource name such as nvidia.com/gpu for acceld's socket"
              + " for it in --device-plugin-dir.")
  String target;

  @Option(
      names = "--device-plugin-dir",
      paramLabel = "DIR",
      description =
          "Where acceld's sockets are, for a RESOURCE (with --kubelet-registration"
              + " plugin-watcher, the plugins registry); default ${DEFAULT-VALUE}.")
  Path devicePluginDir = Path.of(Settings.DEVICE_PLUGIN_DIR.defaultText());

  @Option(
      names = "--allocate",
      paramLabel = "N",
      description =
          "Also ask for a preferred allocation of N healthy devices and Allocate them (leases"
              + " them, see above).")
  Integer allocate;

  private final CliContext context;

  KubeletProbeCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (allocate != null && allocate < 1) {
      throw new ConfigException(
          "--allocate " + allocate + ": expects a number of devices, 1 or more");
    }
    Path socket = socket();
    if (!Files.exists(socket)) {
      throw new OperatorError(
          OperatorError.Kind.AGENT_UNREACHABLE,
          "no plugin socket at "
              + socket
              + "; is 'acceld run' serving it? (a RESOURCE is looked up in --device-plugin-dir)");
    }
    PrintWriter out = context.out();
    try (UnixGrpc grpc = new UnixGrpc("acceld-probe", 1)) {
      ManagedChannel channel = grpc.channel(socket);
      try {
        probe(DevicePluginGrpc.newBlockingStub(channel), socket, out);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.UNAVAILABLE
            || e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
          throw new OperatorError(
              OperatorError.Kind.AGENT_UNREACHABLE,
              "the plugin at " + socket + " does not answer: " + e.getStatus(),
              e);
        }
        out.flush();
        context.err().println("acceld: the plugin at " + socket + " answered " + e.getStatus());
        context.err().flush();
        return 1;
      } finally {
        channel.shutdownNow();
      }
    }
    out.flush();
    return 0;
  }

  private Path socket() {
    Path given = Path.of(target);
    if (target.endsWith(".sock") || Files.exists(given)) {
      return given.toAbsolutePath();
    }
    return devicePluginDir.resolve(KubeletPublisher.socketFileName(target)).toAbsolutePath();
  }

  private void probe(DevicePluginGrpc.DevicePluginBlockingStub stub, Path socket, PrintWriter out) {
    DevicePluginOptions options =
        stub.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .getDevicePluginOptions(Empty.getDefaultInstance());
    out.println("plugin " + socket);
    out.println(
        "options: pre_start_required="
            + options.getPreStartRequired()
            + " get_preferred_allocation_available="
            + options.getGetPreferredAllocationAvailable());
    Iterator<ListAndWatchResponse> stream =
        stub.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .listAndWatch(Empty.getDefaultInstance());
    List<Device> devices = stream.next().getDevicesList();
    out.println("devices: " + devices.size());
    for (Device d : devices) {
      out.println(
          "  "
              + d.getID()
              + "  "
              + d.getHealth()
              + "  numa="
              + (d.hasTopology() && d.getTopology().getNodesCount() > 0
                  ? d.getTopology().getNodesList().stream()
                      .map(NUMANode::getID)
                      .map(String::valueOf)
                      .collect(Collectors.joining(","))
                  : "(none)"));
    }
    if (allocate != null) {
      allocate(stub, options, devices, out);
    }
  }

  private void allocate(
      DevicePluginGrpc.DevicePluginBlockingStub stub,
      DevicePluginOptions options,
      List<Device> devices,
      PrintWriter out) {
    List<String> healthy =
        devices.stream().filter(d -> d.getHealth().equals("Healthy")).map(Device::getID).toList();
    if (healthy.size() < allocate) {
      throw new ConfigException(
          "--allocate "
              + allocate
              + ": the plugin lists only "
              + healthy.size()
              + " healthy devices");
    }
    List<String> chosen = healthy.subList(0, allocate);
    if (options.getGetPreferredAllocationAvailable()) {
      chosen =
          stub.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
              .getPreferredAllocation(
                  PreferredAllocationRequest.newBuilder()
                      .addContainerRequests(
                          ContainerPreferredAllocationRequest.newBuilder()
                              .addAllAvailableDeviceIDs(healthy)
                              .setAllocationSize(allocate))
                      .build())
              .getContainerResponses(0)
              .getDeviceIDsList();
      out.println("preferred allocation: " + String.join(",", chosen));
    } else {
      out.println("preferred allocation: (not offered; the first healthy devices are used)");
    }
    AllocateResponse response =
        stub.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .allocate(
                AllocateRequest.newBuilder()
                    .addContainerRequests(
                        ContainerAllocateRequest.newBuilder().addAllDevicesIds(chosen))
                    .build());
    out.println("allocate " + String.join(",", chosen) + ":");
    for (ContainerAllocateResponse c : response.getContainerResponsesList()) {
      new TreeMap<>(c.getEnvsMap()).forEach((k, v) -> out.println("  env " + k + "=" + v));
      c.getMountsList()
          .forEach(
              m ->
                  out.println(
                      "  mount "
                          + m.getHostPath()
                          + " -> "
                          + m.getContainerPath()
                          + (m.getReadOnly() ? " (ro)" : "")));
      c.getDevicesList()
          .forEach(
              d ->
                  out.println(
                      "  device "
                          + d.getHostPath()
                          + " -> "
                          + d.getContainerPath()
                          + " ("
                          + d.getPermissions()
                          + ")"));
      for (Map.Entry<String, String> a : new TreeMap<>(c.getAnnotationsMap()).entrySet()) {
        out.println("  annotation " + a.getKey() + "=" + a.getValue());
      }
      c.getCdiDevicesList().forEach(d -> out.println("  cdi " + d.getName()));
    }
  }
}
