package io.acceld.kubelet;

import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationGrpc;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import io.acceld.proto.pluginregistration.RegistrationStatusResponse;
import io.acceld.util.ClientText;
import io.grpc.stub.StreamObserver;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plugin-watcher registration: the kubelet finds our socket in its plugins registry and asks who we
 * are. The same socket serves the DevicePlugin service, so the endpoint is left empty. A rejection
 * is logged with the kubelet's reason and handed to {@code onStatus}, which re-creates the socket:
 * the kubelet retries only when the socket changes.
 */
final class PluginRegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger log = LoggerFactory.getLogger(PluginRegistrationService.class);
  static final String DEVICE_PLUGIN_TYPE = "DevicePlugin";
  static final String API_VERSION = "v1beta1";

  private final String resource;
  private final Consumer<Boolean> onStatus;

  PluginRegistrationService(String resource, Consumer<Boolean> onStatus) {
    this.resource = resource;
    this.onStatus = onStatus;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    response.onNext(
        PluginInfo.newBuilder()
            .setType(DEVICE_PLUGIN_TYPE)
            .setName(resource)
            .setEndpoint("")
            .addSupportedVersions(API_VERSION)
            .build());
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
    response.onNext(RegistrationStatusResponse.getDefaultInstance());
    response.onCompleted();
    if (status.getPluginRegistered()) {
      log.info("The kubelet registered {} through the plugin watcher", resource);
    } else {
      log.warn(
          "The kubelet rejected {}: {}; re-creating the socket",
          resource,
          ClientText.quote(status.getError()));
    }
    onStatus.accept(status.getPluginRegistered());
  }
}
