package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.Address;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.Attribute;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.URL;
import io.acceld.proto.mesos.v1.Value;
import java.util.List;
import java.util.Map;

/**
 * Builds the Offer protos of this agent: its ID, hostname and {@code url} ({@code
 * http://host:port/slave(1)}, as Mesos's master fills it), attributes, the framework's executors,
 * and resources in the form the framework's capabilities ask for.
 */
final class OfferFactory {
  private final AgentID agentId;
  private final String hostname;
  private final URL url;

  OfferFactory(AgentID agentId, String hostname, String ip, int port) {
    this.agentId = agentId;
    this.hostname = hostname;
    this.url =
        URL.newBuilder()
            .setScheme("http")
            .setAddress(Address.newBuilder().setHostname(hostname).setIp(ip).setPort(port))
            .setPath("/slave(1)")
            .build();
  }

  Offer build(
      OfferID id,
      Framework framework,
      String role,
      Quantities amounts,
      List<Attribute> attributes,
      List<ExecutorID> executors) {
    boolean refinement = framework.has(FrameworkInfo.Capability.Type.RESERVATION_REFINEMENT);
    Offer.Builder offer =
        Offer.newBuilder()
            .setId(id)
            .setFrameworkId(framework.id)
            .setAgentId(agentId)
            .setHostname(hostname)
            .setUrl(url)
            .setAllocationInfo(Resource.AllocationInfo.newBuilder().setRole(role))
            .addAllAttributes(attributes)
            .addAllExecutorIds(executors);
    for (Map.Entry<String, Double> e : amounts.amounts().entrySet()) {
      offer.addResources(scalar(e.getKey(), e.getValue(), role, refinement));
    }
    return offer.build();
  }

  /**
   * One unreserved scalar. Without RESERVATION_REFINEMENT unreserved resources carry the
   * (deprecated) {@code role: "*"}; with it they carry no role and no reservations. Both carry the
   * allocation role, as every resource of an offer does.
   */
  static Resource scalar(String name, double value, String role, boolean refinement) {
    Resource.Builder r =
        Resource.newBuilder()
            .setName(name)
            .setType(Value.Type.SCALAR)
            .setScalar(Value.Scalar.newBuilder().setValue(value))
            .setAllocationInfo(Resource.AllocationInfo.newBuilder().setRole(role));
    if (!refinement) {
      r.setRole("*");
    }
    return r.build();
  }
}
