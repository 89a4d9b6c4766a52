package io.acceld.dra;

import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigException;
import io.acceld.config.Settings;
import io.acceld.dra.apiserver.DraApiSettings;
import io.acceld.dra.apiserver.SlicePublisher;
import io.acceld.inventory.InventoryStore;
import io.acceld.ledger.DeviceLedger;
import io.acceld.transport.UnixGrpc;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The DRA publisher as the agent runs it: the API-server side (ResourceSlices, and the claims
 * prepare reads) and the kubelet side (registration, prepare, health) over one ledger. Built only
 * when {@code --dra-driver} is set, so an agent without DRA loads none of it.
 *
 * <p>Nothing here waits for the API server: the kubelet side serves from the start, and a claim
 * whose lookup fails gets its own error. The slices follow once the API server answers; until then
 * {@code /readyz} names DRA, and while it errs {@code /healthz} says why.
 */
public final class DraPublisher implements AutoCloseable {
  private final SlicePublisher slices;
  private final DraKubeletSide kubelet;

  private DraPublisher(SlicePublisher slices, DraKubeletSide kubelet) {
    this.slices = slices;
    this.kubelet = kubelet;
  }

  /**
   * Starts both sides for {@code config}'s driver on {@code nodeName}, the kubelet side's sockets
   * on {@code grpc}, the agent's event loop (borrowed: close this publisher before it).
   *
   * @throws ConfigException when the Kubernetes configuration or the driver name is unusable
   * @throws IOException when a socket cannot be served
   */
  public static DraPublisher start(
      AgentConfig config,
      String nodeName,
      DeviceLedger ledger,
      InventoryStore store,
      MeterRegistry registry,
      Clock clock,
      UnixGrpc grpc)
      throws IOException {
    DraApiSettings api =
        DraApiSettings.load(
            config.get(Settings.DRA_DRIVER),
            nodeName,
            config.get(Settings.KUBECONFIG),
            config.environment());
    DraSettings kubeletSettings;
    try {
      kubeletSettings = DraSettings.of(config, nodeName);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--dra-driver: " + e.getMessage(), e);
    }
    // One API client for both: the slices' writes and watch, and the claims prepare reads.
    SlicePublisher slices = SlicePublisher.start(api, ledger, registry, clock);
    try {
      DraKubeletSide kubelet =
          DraKubeletSide.start(
              kubeletSettings, ledger, store, slices.claims(), registry, clock, grpc);
      return new DraPublisher(slices, kubelet);
    } catch (IOException | RuntimeException e) {
      slices.close();
      throw e;
    }
  }

  /** For {@code /readyz}: why DRA is not ready (slices not published, not registered). */
  public List<String> notReady() {
    List<String> reasons = new ArrayList<>();
    slices.status().notReady().ifPresent(reasons::add);
    return reasons;
  }

  /** For {@code /healthz}: the API server's last error while it stands. */
  public Optional<String> degraded() {
    return slices.status().degraded();
  }

  /** Whether the kubelet accepted the DRA plugin's registration. */
  public boolean registered() {
    return kubelet.registered();
  }

  @Override
  public void close() {
    // The kubelet side first: its sockets go before the slices stop following the ledger.
    kubelet.close();
    slices.close();
  }
}
