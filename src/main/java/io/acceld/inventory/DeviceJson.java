package io.acceld.inventory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The devices document of {@code acceld devices --json} and of the agent's {@code /devices}: an
 * array with one object per device. Keys are a contract for scripts: always {@code resource, id,
 * vendor, model, pciAddress, numaNode, deviceNodes, health}; {@code healthReason} when unhealthy;
 * {@code uuid, memoryBytes, driverVersion} for NVIDIA GPUs described by NVML.
 */
public final class DeviceJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private DeviceJson() {}

  /** One row per device, device nodes as absolute paths under {@code devRoot}. */
  public static List<Map<String, Object>> rows(Inventory inventory, Path devRoot) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Device d : inventory.devices()) {
      rows.add(row(d, inventory, devRoot));
    }
    return rows;
  }

  /** The row of one device of {@code inventory}. */
  public static Map<String, Object> row(Device d, Inventory inventory, Path devRoot) {
    {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("resource", d.resource());
      row.put("id", d.id());
      row.put("vendor", d.vendorHex());
      row.put("model", d.model());
      row.put("pciAddress", d.pciAddress());
      row.put("numaNode", d.numaNode());
      row.put(
          "deviceNodes", d.deviceNodes().stream().map(n -> devRoot.resolve(n).toString()).toList());
      row.put("health", d.health().wireValue());
      d.healthReason().ifPresent(r -> row.put("healthReason", r));
      d.driver().ifPresent(drv -> row.put("driver", drv));
      d.nvidia()
          .ifPresent(
              n -> {
                row.put("uuid", n.uuid());
                row.put("memoryBytes", n.memoryBytes());
                inventory.node().nvidiaDriverVersion().ifPresent(v -> row.put("driverVersion", v));
                row.put("index", n.index());
                if (n.minor() >= 0) {
                  row.put("minor", n.minor());
                }
                n.computeCapability().ifPresent(cc -> row.put("computeCapability", cc));
                n.migEnabled().ifPresent(mig -> row.put("migEnabled", mig));
                n.mig()
                    .ifPresent(
                        mig -> {
                          row.put("migProfile", mig.profile());
                          row.put("parentId", mig.parentUuid());
                          row.put("gpuInstanceId", mig.gpuInstanceId());
                          row.put("computeInstanceId", mig.computeInstanceId());
                        });
              });
      return row;
    }
  }

  public static String render(List<Map<String, Object>> rows) {
    try {
      return MAPPER.writeValueAsString(rows);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render devices as JSON", e);
    }
  }

  public static String render(Inventory inventory, Path devRoot) {
    return render(rows(inventory, devRoot));
  }

  /** Reads a devices document back, e.g. one fetched from a running agent. */
  public static List<Map<String, Object>> parse(String json) throws JsonProcessingException {
    return MAPPER.readValue(json, new TypeReference<List<Map<String, Object>>>() {});
  }
}
