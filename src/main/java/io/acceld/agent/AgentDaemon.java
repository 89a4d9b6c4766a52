package io.acceld.agent;

import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.DcgmModelLabel;
import io.acceld.config.Settings;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.Device;
import io.acceld.inventory.DeviceJson;
import io.acceld.kubelet.podresources.PodResourcesPoller;
import io.acceld.metrics.AgentMetrics;
import io.acceld.metrics.DcgmCollector;
import io.acceld.metrics.MetricsServer;
import io.acceld.metrics.NodeName;
import io.acceld.telemetry.GpuTelemetrySampler;
import io.acceld.telemetry.TelemetrySample;
import io.acceld.transport.UnixGrpc;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything {@code acceld run} runs: the agent, its metrics, GPU telemetry, the pod-resources
 * poller and the HTTP endpoints. Closing it stops them in the reverse order, kubelet servers first
 * so their sockets go away before anything else.
 */
public final class AgentDaemon implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentDaemon.class);

  private final List<AutoCloseable> parts = new ArrayList<>();
  private Agent agent;
  private MetricsServer server;

  private AgentDaemon() {}

  public static AgentDaemon start(AgentConfig config) throws IOException {
    AgentDaemon daemon = new AgentDaemon();
    try {
      daemon.startParts(config);
      return daemon;
    } catch (IOException | RuntimeException e) {
      daemon.close();
      throw e;
    }
  }

  private void startParts(AgentConfig config) throws IOException {
    NodeDiscovery discovery = NodeDiscovery.open(config, true);
    UnixGrpc podGrpc = keep(new UnixGrpc("acceld-podresources", 1));
    PodResourcesPoller pods =
        keep(new PodResourcesPoller(config.get(Settings.POD_RESOURCES_SOCKET), podGrpc));
    AtomicReference<GpuTelemetrySampler> telemetry = new AtomicReference<>();
    AgentMetrics metrics =
        keep(
            AgentMetrics.builder()
                .hostname(
                    NodeName.resolve(
                        config.get(Settings.NODE_NAME),
                        config.environment(),
                        config.get(Settings.PROC_ROOT)))
                .nvmlCallStats(() -> discovery.nvml().map(n -> n.callStats()))
                .telemetry(
                    () ->
                        Optional.ofNullable(telemetry.get())
                            .map(GpuTelemetrySampler::latest)
                            .orElse(TelemetrySample.EMPTY))
                .podOwners(pods::owner)
                .dcgmLabels(
                    config.get(Settings.DCGM_MODEL_LABEL) == DcgmModelLabel.DCGM_EXPORTER
                        ? DcgmCollector.LabelNames.DCGM_EXPORTER
                        : DcgmCollector.LabelNames.PROMTOOL_CLEAN)
                .build());
    HealthEvents health =
        new HealthEvents() {
          @Override
          public void xid(Device device, int xid, boolean ignored) {
            metrics.xids().record(device.resource(), device.id(), xid);
          }

          @Override
          public void singleBitEcc(Device device) {
            metrics.ecc().recordCorrected(device.resource(), device.id());
          }
        };
    agent =
        keep(
            new Agent(
                config,
                discovery,
                new TopologyAwareChooser(),
                new Agent.Observers(metrics.kubelet(), health, List.of(metrics.grpc())),
                Clock.systemUTC()));
    metrics.deviceHealth().follow(agent.inventory());
    agent.start();
    discovery
        .nvml()
        .ifPresent(
            nvml -> {
              GpuTelemetrySampler sampler =
                  keep(
                      new GpuTelemetrySampler(
                          nvml,
                          agent.inventory()::current,
                          config.get(Settings.TELEMETRY_INTERVAL)));
              telemetry.set(sampler);
              sampler.start();
            });
    pods.start();
    server =
        keep(
            MetricsServer.start(
                config.get(Settings.METRICS_ADDRESS),
                metrics.registry(),
                () ->
                    agent.alive()
                        && pods.alive()
                        && Optional.ofNullable(telemetry.get())
                            .map(GpuTelemetrySampler::alive)
                            .orElse(true),
                () -> agent.kubelet().ready(),
                () ->
                    DeviceJson.render(agent.inventory().current(), config.get(Settings.DEV_ROOT))
                        + "\n"));
  }

  private <T extends AutoCloseable> T keep(T part) {
    parts.add(part);
    return part;
  }

  public Agent agent() {
    return agent;
  }

  public MetricsServer metricsServer() {
    return server;
  }

  /**
   * Stops everything in reverse order of start: the HTTP server, the telemetry sampler (before NVML
   * is shut down), then the agent, whose kubelet servers and sockets go first.
   */
  @Override
  public void close() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      AutoCloseable part = parts.get(i);
      try {
        part.close();
      } catch (Exception e) {
        log.debug("Closing {}: {}", part, e.toString());
      }
    }
  }
}
