package io.acceld.kubelet.podresources;

import io.acceld.proto.podresources.v1.ContainerDevices;
import io.acceld.proto.podresources.v1.ContainerResources;
import io.acceld.proto.podresources.v1.ListPodResourcesRequest;
import io.acceld.proto.podresources.v1.ListPodResourcesResponse;
import io.acceld.proto.podresources.v1.PodResources;
import io.acceld.proto.podresources.v1.PodResourcesListerGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** The kubelet's pod-resources service with a settable answer, counting the List calls it gets. */
public final class FakePodResources extends PodResourcesListerGrpc.PodResourcesListerImplBase {
  private final AtomicReference<ListPodResourcesResponse> answer =
      new AtomicReference<>(ListPodResourcesResponse.getDefaultInstance());
  private final AtomicReference<Status> failure = new AtomicReference<>();
  private final AtomicInteger calls = new AtomicInteger();

  @Override
  public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
    calls.incrementAndGet();
    Status status = failure.get();
    if (status != null) {
      out.onError(status.asRuntimeException());
      return;
    }
    out.onNext(answer.get());
    out.onCompleted();
  }

  public void answer(ListPodResourcesResponse response) {
    answer.set(response);
  }

  /** Fails every call with {@code status}; null to answer again. */
  public void fail(Status status) {
    failure.set(status);
  }

  public int calls() {
    return calls.get();
  }

  public static ListPodResourcesResponse pods(PodResources... pods) {
    ListPodResourcesResponse.Builder response = ListPodResourcesResponse.newBuilder();
    for (PodResources p : pods) {
      response.addPodResources(p);
    }
    return response.build();
  }

  public static PodResources pod(String namespace, String name, ContainerResources... containers) {
    PodResources.Builder pod = PodResources.newBuilder().setNamespace(namespace).setName(name);
    for (ContainerResources c : containers) {
      pod.addContainers(c);
    }
    return pod.build();
  }

  public static ContainerResources container(String name, String resource, String... deviceIds) {
    return ContainerResources.newBuilder()
        .setName(name)
        .addDevices(
            ContainerDevices.newBuilder()
                .setResourceName(resource)
                .addAllDeviceIds(java.util.List.of(deviceIds)))
        .build();
  }
}
