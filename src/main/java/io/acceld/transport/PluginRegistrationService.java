package io.acceld.transport;

import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationGrpc;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import io.acceld.proto.pluginregistration.RegistrationStatusResponse;
import io.acceld.util.ClientText;
import io.grpc.stub.StreamObserver;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plugin-watcher registration, for any kind of kubelet plugin: the kubelet finds a socket in its
 * plugins registry and asks who we are ({@code GetInfo}, answered with a fixed {@link PluginInfo}),
 * then says whether it took us. A rejection is logged with the kubelet's reason (quoted and
 * bounded: it is the client's text) and handed to {@code onStatus}; the device plugin re-creates
 * its socket then, because the kubelet retries only when the socket changes.
 */
public final class PluginRegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger log = LoggerFactory.getLogger(PluginRegistrationService.class);

  private final PluginInfo info;
  private final String what;
  private final Consumer<Boolean> onStatus;

  /**
   * @param info what GetInfo answers
   * @param what how log lines name the plugin ({@code nvidia.com/gpu}, {@code DRA driver x})
   * @param onStatus told whether the kubelet registered the plugin
   */
  public PluginRegistrationService(PluginInfo info, String what, Consumer<Boolean> onStatus) {
    this.info = Objects.requireNonNull(info, "info");
    this.what = Objects.requireNonNull(what, "what");
    this.onStatus = Objects.requireNonNull(onStatus, "onStatus");
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    response.onNext(info);
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
    response.onNext(RegistrationStatusResponse.getDefaultInstance());
    response.onCompleted();
    if (status.getPluginRegistered()) {
      log.info("The kubelet registered {} through the plugin watcher", what);
    } else {
      log.warn("The kubelet rejected {}: {}", what, ClientText.quote(status.getError()));
    }
    onStatus.accept(status.getPluginRegistered());
  }
}
