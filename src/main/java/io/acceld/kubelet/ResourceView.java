package io.acceld.kubelet;

import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.ReplicaId;
import io.acceld.inventory.Topology;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Lease;
import io.acceld.ledger.Publisher;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.NUMANode;
import io.acceld.proto.deviceplugin.v1beta1.TopologyInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one device-plugin server advertises: an immutable view of one resource, built from an
 * inventory snapshot and the resource's sharing policy. Allocate and PreStartContainer answer from
 * it alone, so they touch neither NVML nor the file system.
 */
public final class ResourceView {
  private static final Logger log = LoggerFactory.getLogger(ResourceView.class);

  private final String resource;
  private final String advertisedName;
  private final List<AdvertisedDevice> devices;
  private final Map<String, AdvertisedDevice> byKubeletId;
  private final Inventory inventory;
  private final ListAndWatchResponse listAndWatch;

  private ResourceView(
      String resource, String advertisedName, List<AdvertisedDevice> devices, Inventory inventory) {
    this.resource = resource;
    this.advertisedName = advertisedName;
    this.devices = List.copyOf(devices);
    Map<String, AdvertisedDevice> index = new LinkedHashMap<>();
    devices.forEach(d -> index.put(d.kubeletId(), d));
    this.byKubeletId = Collections.unmodifiableMap(index);
    this.inventory = inventory;
    this.listAndWatch = render(devices);
  }

  /** The name a resource is advertised under with {@code policy}. */
  public static String advertisedName(String resource, SharingPolicy policy) {
    return policy.advertisedName(resource);
  }

  /** The view of {@code resource} in {@code inventory}, with nothing leased. */
  public static ResourceView of(Inventory inventory, String resource, SharingPolicy policy) {
    return of(Availability.EMPTY.withInventory(inventory), resource, policy);
  }

  /**
   * The view of {@code resource} in {@code availability}; empty of devices if it has none. A device
   * another side (Mesos) holds is listed Unhealthy, so the kubelet admits no pod onto it.
   */
  public static ResourceView of(Availability availability, String resource, SharingPolicy policy) {
    Inventory inventory = availability.inventory();
    List<AdvertisedDevice> advertised = new ArrayList<>();
    for (Device d : inventory.devicesOf(resource)) {
      Optional<Lease> elsewhere = availability.heldAgainst(d.id(), Publisher.KUBELET);
      if (!policy.isShared()) {
        advertised.add(new AdvertisedDevice(d.id(), d, elsewhere));
        continue;
      }
      for (int k = 0; k < policy.replicas(); k++) {
        String id = ReplicaId.of(d.id(), k).advertisedId();
        if (id.length() > Device.MAX_ID_LENGTH) {
          log.error("Cannot share {}: replica ID {} exceeds 63 characters", d.id(), id);
          break;
        }
        advertised.add(new AdvertisedDevice(id, d, elsewhere));
      }
    }
    return new ResourceView(resource, advertisedName(resource, policy), advertised, inventory);
  }

  /** This resource with no device, in {@code availability}'s inventory: it has none left. */
  ResourceView emptied(Availability availability) {
    return new ResourceView(resource, advertisedName, List.of(), availability.inventory());
  }

  private static ListAndWatchResponse render(List<AdvertisedDevice> devices) {
    ListAndWatchResponse.Builder response = ListAndWatchResponse.newBuilder();
    for (AdvertisedDevice a : devices) {
      io.acceld.proto.deviceplugin.v1beta1.Device.Builder d =
          io.acceld.proto.deviceplugin.v1beta1.Device.newBuilder()
              .setID(a.kubeletId())
              .setHealth(a.advertisedHealth().wireValue());
      // Topology only when known: the kubelet treats a device with topology as NUMA-aligned.
      if (a.device().numaNode() >= 0) {
        d.setTopology(
            TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(a.device().numaNode())));
      }
      response.addDevices(d);
    }
    return response.build();
  }

  /** The inventory resource, such as {@code nvidia.com/gpu}. */
  public String resource() {
    return resource;
  }

  /** The name registered with the kubelet: the resource, or {@code <resource>.shared}. */
  public String advertisedName() {
    return advertisedName;
  }

  public List<AdvertisedDevice> devices() {
    return devices;
  }

  public Optional<AdvertisedDevice> lookup(String kubeletId) {
    return Optional.ofNullable(byKubeletId.get(kubeletId));
  }

  /** The snapshot this view was built from: the physical devices and their topology. */
  public Inventory inventory() {
    return inventory;
  }

  public Topology topology() {
    return inventory.topology();
  }

  /** The full list as ListAndWatch sends it, built once per view. */
  public ListAndWatchResponse listAndWatchResponse() {
    return listAndWatch;
  }

  /** Same advertised list (IDs, health, topology) as {@code other}: no need to resend. */
  public boolean sameListAs(ResourceView other) {
    return other != null && listAndWatch.equals(other.listAndWatch);
  }
}
