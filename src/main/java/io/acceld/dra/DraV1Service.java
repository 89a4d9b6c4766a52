package io.acceld.dra;

import io.acceld.proto.dra.v1.Claim;
import io.acceld.proto.dra.v1.DRAPluginGrpc;
import io.acceld.proto.dra.v1.Device;
import io.acceld.proto.dra.v1.NodePrepareResourceResponse;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.proto.dra.v1.NodePrepareResourcesResponse;
import io.acceld.proto.dra.v1.NodeUnprepareResourceResponse;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's DRA API, v1 ({@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}): translation only;
 * the work is {@link DraCalls}'s, shared by every version.
 */
final class DraV1Service extends DRAPluginGrpc.DRAPluginImplBase {
  private final DraCalls calls;

  DraV1Service(DraCalls calls) {
    this.calls = calls;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    Map<String, PrepareOutcome> outcomes = calls.prepare(refs(request.getClaimsList()));
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    outcomes.forEach((uid, outcome) -> out.putClaims(uid, answer(outcome)));
    response.onNext(out.build());
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    Map<String, Optional<String>> errors = calls.unprepare(refs(request.getClaimsList()));
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    errors.forEach(
        (uid, error) ->
            out.putClaims(
                uid,
                NodeUnprepareResourceResponse.newBuilder().setError(error.orElse("")).build()));
    response.onNext(out.build());
    response.onCompleted();
  }

  private static List<ClaimRef> refs(List<Claim> claims) {
    return claims.stream()
        .map(c -> new ClaimRef(c.getNamespace(), c.getUid(), c.getName()))
        .toList();
  }

  private static NodePrepareResourceResponse answer(PrepareOutcome outcome) {
    NodePrepareResourceResponse.Builder b = NodePrepareResourceResponse.newBuilder();
    if (outcome instanceof PrepareOutcome.Failed f) {
      b.setError(f.error());
    } else if (outcome instanceof PrepareOutcome.Prepared p) {
      for (PreparedDevice d : p.devices()) {
        b.addDevices(
            Device.newBuilder()
                .addAllRequestNames(d.requestNames())
                .setPoolName(d.pool())
                .setDeviceName(d.device())
                .addAllCdiDeviceIds(d.cdiDeviceIds()));
      }
    }
    return b.build();
  }
}
