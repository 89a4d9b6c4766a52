package io.acceld.kubelet;

import io.acceld.allocation.DeviceChooser;
import io.acceld.inventory.Device;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LeaseResult;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerResponse;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.acceld.util.ClientText;
import io.acceld.util.RateLimitedLog;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code v1beta1.DevicePlugin} service of one resource. Every answer comes from the current
 * {@link ResourceView}, an immutable value swapped in by {@link #update}, and from the {@link
 * DeviceLedger}: Allocate records a pending lease for each container's devices before it answers,
 * so a device the kubelet was just given is never offered to Mesos, and a device Mesos took a
 * moment ago is refused with {@code FAILED_PRECONDITION} naming its holder. Both are memory work
 * only (the ledger writes its checkpoint on its own thread).
 *
 * <p>ListAndWatch follows grpc-java's health-service watch: watchers are kept under one lock, each
 * gets the full list when it opens and again after every change, and a stream is never completed
 * while the server runs, because the kubelet treats any end as the plugin going away.
 */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {
  private static final Logger log = LoggerFactory.getLogger(DevicePluginService.class);

  /**
   * Container requests answered per GetPreferredAllocation. The kubelet sends exactly one
   * (kubelet-device-plugin.md §5); each costs the allocator's bounded search (about a millisecond
   * at 64 devices at worst), and the handler runs on a transport thread, so a call listing
   * thousands would hold that thread, and every RPC queued behind it, for seconds.
   */
  static final int MAX_PREFERRED_CONTAINER_REQUESTS = 4;

  /** Per-request messages: any caller of the socket can repeat a refused call at will. */
  private final RateLimitedLog refusals = new RateLimitedLog(log, Duration.ofMinutes(1));

  private final AtomicReference<ResourceView> view;
  private final DevicePluginOptions options;
  private final AllocationResponder responder;
  private final DeviceChooser preferred;
  private final PluginEvents events;
  private final DeviceLedger ledger;
  private final PendingAllocations pending;

  private final Object watchLock = new Object();
  // Guarded by watchLock; identity semantics, as observers have no meaningful equals.
  private final Set<ServerCallStreamObserver<ListAndWatchResponse>> watchers =
      Collections.newSetFromMap(new IdentityHashMap<>());

  DevicePluginService(
      ResourceView initial,
      DevicePluginOptions options,
      AllocationResponder responder,
      DeviceChooser preferred,
      PluginEvents events,
      DeviceLedger ledger,
      PendingAllocations pending) {
    this.view = new AtomicReference<>(initial);
    this.ledger = ledger;
    this.pending = pending;
    this.options = options;
    this.responder = responder;
    this.preferred = preferred;
    this.events = events;
  }

  ResourceView view() {
    return view.get();
  }

  DevicePluginOptions options() {
    return options;
  }

  /** Makes {@code next} current and, if the advertised list changed, sends it to every watcher. */
  void update(ResourceView next) {
    ResourceView previous = view.getAndSet(next);
    if (!next.sameListAs(previous)) {
      broadcast(next.listAndWatchResponse());
    }
  }

  int watcherCount() {
    synchronized (watchLock) {
      return watchers.size();
    }
  }

  private void broadcast(ListAndWatchResponse response) {
    synchronized (watchLock) {
      for (ServerCallStreamObserver<ListAndWatchResponse> w : List.copyOf(watchers)) {
        send(w, response);
      }
    }
  }

  // Called with watchLock held, which also serialises onNext per stream as gRPC requires.
  private void send(
      ServerCallStreamObserver<ListAndWatchResponse> w, ListAndWatchResponse response) {
    if (w.isCancelled()) {
      removeWatcher(w);
      return;
    }
    try {
      w.onNext(response);
    } catch (RuntimeException e) {
      log.debug(
          "Dropping a ListAndWatch stream of {}: {}", view.get().advertisedName(), e.toString());
      removeWatcher(w);
    }
  }

  private void removeWatcher(ServerCallStreamObserver<ListAndWatchResponse> w) {
    synchronized (watchLock) {
      if (watchers.remove(w)) {
        events.streams(view.get().advertisedName(), watchers.size());
      }
    }
  }

  @Override
  public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
    response.onNext(options);
    response.onCompleted();
  }

  @Override
  public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
    ServerCallStreamObserver<ListAndWatchResponse> stream =
        (ServerCallStreamObserver<ListAndWatchResponse>) response;
    stream.setOnCancelHandler(() -> removeWatcher(stream));
    synchronized (watchLock) {
      watchers.add(stream);
      events.streams(view.get().advertisedName(), watchers.size());
      send(stream, view.get().listAndWatchResponse());
    }
  }

  @Override
  public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
    ResourceView current = view.get();
    try {
      if (request.getContainerRequestsCount() == 0) {
        throw invalid("the AllocateRequest has no container requests");
      }
      // Resolve every container first: one bad ID means nothing at all is handed out.
      List<List<Device>> resolved = new ArrayList<>();
      List<DeviceLedger.Request> leases = new ArrayList<>();
      int index = 0;
      for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
        resolved.add(resolve(current, container.getDevicesIdsList(), index));
        leases.add(
            new DeviceLedger.Request(
                pending.next(),
                container.getDevicesIdsList().stream().map(ReplicaId::parse).toList(),
                "Allocate of "
                    + current.advertisedName()
                    + " (container "
                    + index
                    + " of "
                    + request.getContainerRequestsCount()
                    + ")"));
        index++;
      }
      requireDistinct(leases);
      // Write before acknowledge: the leases are the ledger's before the kubelet hears yes.
      if (ledger.lease(leases) instanceof LeaseResult.Refused refused) {
        throw Status.FAILED_PRECONDITION
            .withDescription("cannot allocate: " + refused.message())
            .asRuntimeException();
      }
      AllocateResponse.Builder out = AllocateResponse.newBuilder();
      int handedOut = 0;
      for (List<Device> devices : resolved) {
        out.addContainerResponses(responder.respond(devices));
        handedOut += devices.size();
      }
      events.allocated(current.advertisedName(), handedOut);
      response.onNext(out.build());
      response.onCompleted();
    } catch (StatusRuntimeException e) {
      refusals.warn(
          "Allocate of {} refused ({}): {}",
          current.advertisedName(),
          e.getStatus().getCode(),
          e.getStatus().getDescription());
      response.onError(e);
    }
  }

  /**
   * One device for two containers is the request's fault, not the node's: {@code INVALID_ARGUMENT}
   * naming the device and both containers (the kubelet never sends it).
   */
  private static void requireDistinct(List<DeviceLedger.Request> containers) {
    // By device, the slots named so far and their container: a slot named by a second container
    // throws, so each device's map stays as small as its replica count, whatever the request holds.
    Map<String, Map<ReplicaId, Integer>> byDevice = new HashMap<>();
    for (int c = 0; c < containers.size(); c++) {
      for (ReplicaId slot : containers.get(c).slots()) {
        Map<ReplicaId, Integer> owner =
            byDevice.computeIfAbsent(slot.deviceId(), d -> new HashMap<>());
        for (Map.Entry<ReplicaId, Integer> seen : owner.entrySet()) {
          if (seen.getValue() != c && seen.getKey().overlaps(slot)) {
            throw invalid(
                "device "
                    + ClientText.quote(slot.advertisedId())
                    + " is named by container requests "
                    + seen.getValue()
                    + " and "
                    + c);
          }
        }
        owner.putIfAbsent(slot, c);
      }
    }
  }

  /**
   * The physical devices behind {@code ids}, in request order, replicas folded onto their device.
   */
  private static List<Device> resolve(ResourceView view, List<String> ids, int container) {
    if (ids.isEmpty()) {
      throw invalid("container request " + container + " names no devices");
    }
    Map<String, Device> physical = new LinkedHashMap<>();
    for (String id : ids) {
      AdvertisedDevice advertised =
          view.lookup(id)
              .orElseThrow(
                  () ->
                      invalid(
                          "unknown device ID "
                              + ClientText.quote(id)
                              + " for resource "
                              + view.advertisedName()));
      Device device = advertised.device();
      if (!device.isHealthy()) {
        throw invalid(
            "device ID "
                + ClientText.quote(id)
                + " is Unhealthy"
                + device.healthReason().map(r -> ": " + r).orElse(""));
      }
      physical.putIfAbsent(device.id(), device);
    }
    return List.copyOf(physical.values());
  }

  @Override
  public void getPreferredAllocation(
      PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
    ResourceView current = view.get();
    if (request.getContainerRequestsCount() > MAX_PREFERRED_CONTAINER_REQUESTS) {
      String why =
          "GetPreferredAllocation lists "
              + request.getContainerRequestsCount()
              + " container requests; at most "
              + MAX_PREFERRED_CONTAINER_REQUESTS
              + " are answered (the kubelet sends one)";
      log.debug("GetPreferredAllocation of {} refused: {}", current.advertisedName(), why);
      response.onError(invalid(why));
      return;
    }
    PreferredAllocationResponse.Builder out = PreferredAllocationResponse.newBuilder();
    for (ContainerPreferredAllocationRequest container : request.getContainerRequestsList()) {
      if (container.getAllocationSize() < 0) {
        response.onError(invalid("allocation_size must not be negative"));
        return;
      }
      // Only what we advertise, each once: an answer must be a subset of what we advertise, and the
      // search's cost must be bounded by this resource's size, not by what a client sends.
      Optional<String> bad =
          checkIds(current, container.getAvailableDeviceIDsList(), "available_deviceIDs")
              .or(
                  () ->
                      checkIds(
                          current,
                          container.getMustIncludeDeviceIDsList(),
                          "must_include_deviceIDs"));
      if (bad.isPresent()) {
        refusals.debug(
            "GetPreferredAllocation of {} refused: {}", current.advertisedName(), bad.get());
        response.onError(invalid(bad.get()));
        return;
      }
      List<String> chosen =
          preferred.choose(
              current.inventory(),
              container.getAvailableDeviceIDsList(),
              container.getMustIncludeDeviceIDsList(),
              container.getAllocationSize());
      out.addContainerResponses(
          ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(chosen));
    }
    response.onNext(out.build());
    response.onCompleted();
  }

  /** Why {@code ids} is not a list of distinct IDs this resource advertises, if it is not. */
  private static Optional<String> checkIds(ResourceView view, List<String> ids, String field) {
    if (ids.size() > view.devices().size()) {
      return Optional.of(
          field
              + " lists "
              + ids.size()
              + " IDs, more than the "
              + view.devices().size()
              + " that "
              + view.advertisedName()
              + " advertises");
    }
    Set<String> seen = new HashSet<>();
    for (String id : ids) {
      if (view.lookup(id).isEmpty()) {
        return Optional.of(
            "unknown device ID "
                + ClientText.quote(id)
                + " in "
                + field
                + " for resource "
                + view.advertisedName());
      }
      if (!seen.add(id)) {
        return Optional.of("device ID " + ClientText.quote(id) + " appears twice in " + field);
      }
    }
    return Optional.empty();
  }

  @Override
  public void preStartContainer(
      PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> response) {
    ResourceView current = view.get();
    for (String id : request.getDevicesIdsList()) {
      var advertised = current.lookup(id);
      if (advertised.isEmpty()) {
        response.onError(
            Status.FAILED_PRECONDITION
                .withDescription("device ID " + ClientText.quote(id) + " is no longer present")
                .asRuntimeException());
        return;
      }
      Device d = advertised.get().device();
      if (advertised.get().heldElsewhere().isPresent()) {
        response.onError(
            Status.FAILED_PRECONDITION
                .withDescription(
                    "device ID "
                        + ClientText.quote(id)
                        + " is held by "
                        + advertised.get().heldElsewhere().get().describeHolder())
                .asRuntimeException());
        return;
      }
      if (!d.isHealthy()) {
        response.onError(
            Status.FAILED_PRECONDITION
                .withDescription(
                    "device ID "
                        + ClientText.quote(id)
                        + " is Unhealthy"
                        + d.healthReason().map(r -> ": " + r).orElse(""))
                .asRuntimeException());
        return;
      }
    }
    response.onNext(PreStartContainerResponse.getDefaultInstance());
    response.onCompleted();
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
