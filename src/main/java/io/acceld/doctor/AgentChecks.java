package io.acceld.doctor;

import io.acceld.doctor.AgentAnswers.Answer;
import io.acceld.inventory.Device;
import io.acceld.inventory.DeviceJson;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A running agent, reached at {@code --agent}: alive ({@code /healthz}), ready ({@code /readyz}),
 * and what it advertises ({@code /devices}) against what this node's discovery finds, with every
 * device it marked unhealthy and why (XIDs and ECC errors included: the agent saw them as events).
 */
final class AgentChecks {
  static final String CHECK = "agent";
  private static final int MAX_SHOWN_LINES = 5;

  private AgentChecks() {}

  static List<Finding> of(Examination e) {
    if (e.agent().isEmpty()) {
      return List.of(
          Finding.skip(
              CHECK,
              "agent",
              "no --agent URL: a running agent is not checked (give its --metrics-address, such"
                  + " as --agent http://127.0.0.1:9445)"));
    }
    AgentAnswers a = e.agent().get();
    String unreachable =
        "is 'acceld run' up (systemctl status acceld, or kubectl -n kube-system get pods)? --agent"
            + " takes its --metrics-address";
    if (a.client().isPresent()) {
      return List.of(
          Finding.fail(
              CHECK,
              "agent",
              "cannot ask " + a.base() + ": " + a.client().get(),
              "fix the file --metrics-auth or --metrics-tls-cert names (the agent's own settings)"));
    }
    List<Finding> findings = new ArrayList<>();
    findings.add(healthz(a, unreachable));
    findings.add(readyz(a, unreachable));
    findings.add(devices(a, e, unreachable));
    return findings;
  }

  private static Finding healthz(AgentAnswers a, String unreachable) {
    String subject = "agent healthz";
    String url = a.base().resolve("/healthz").toString();
    if (!(a.healthz() instanceof Answer.Reply reply)) {
      return Finding.fail(
          CHECK, subject, url + ": " + ((Answer.NoReply) a.healthz()).why(), unreachable);
    }
    List<String> lines = lines(reply.body());
    List<String> degraded = lines.stream().filter(l -> l.startsWith("degraded:")).toList();
    if (reply.status() == 200 && degraded.isEmpty()) {
      return Finding.pass(CHECK, subject, url + ": alive").with("status", reply.status());
    }
    if (reply.status() == 200) {
      return Finding.fail(
              CHECK,
              subject,
              url + ": alive but " + shown(degraded),
              "the agent serves on, but what is degraded needs an operator: its log says more"
                  + " (journalctl -u acceld, or kubectl logs); a full disk under --state-dir is"
                  + " the usual cause of an unwritable checkpoint")
          .with("status", reply.status());
    }
    return Finding.fail(
            CHECK,
            subject,
            url + ": HTTP " + reply.status() + ", " + shown(lines),
            "the agent is stuck and its liveness probe or systemd restarts it; if a loop that"
                + " calls NVML is stuck, check the driver with nvidia-smi (a hang there means a"
                + " wedged GPU: drain the node and reboot it)")
        .with("status", reply.status());
  }

  private static Finding readyz(AgentAnswers a, String unreachable) {
    String subject = "agent readyz";
    String url = a.base().resolve("/readyz").toString();
    if (!(a.readyz() instanceof Answer.Reply reply)) {
      return Finding.fail(
          CHECK, subject, url + ": " + ((Answer.NoReply) a.readyz()).why(), unreachable);
    }
    if (reply.status() == 200) {
      return Finding.pass(CHECK, subject, url + ": ready").with("status", reply.status());
    }
    return Finding.fail(
            CHECK,
            subject,
            url + ": HTTP " + reply.status() + ", " + shown(lines(reply.body())),
            "each reason says what the agent waits for: the kubelet (see the kubelet lines),"
                + " the devices --expect-devices requires, or its first discovery")
        .with("status", reply.status());
  }

  private static Finding devices(AgentAnswers a, Examination e, String unreachable) {
    String subject = "agent devices";
    String url = a.base().resolve("/devices").toString();
    if (!(a.devices() instanceof Answer.Reply reply)) {
      return Finding.fail(
          CHECK, subject, url + ": " + ((Answer.NoReply) a.devices()).why(), unreachable);
    }
    if (reply.status() == 401) {
      return Finding.fail(
          CHECK,
          subject,
          url + ": HTTP 401, a bearer token is required",
          "give doctor the agent's --metrics-auth (or ACCELD_METRICS_AUTH), as the agent has it");
    }
    List<Map<String, Object>> rows;
    try {
      if (reply.status() != 200) {
        throw new IllegalArgumentException("HTTP " + reply.status());
      }
      rows = DeviceJson.parse(reply.body());
    } catch (Exception ex) {
      return Finding.fail(
          CHECK,
          subject,
          url
              + " did not answer a device list: "
              + ClientText.quote(String.valueOf(ex.getMessage())),
          "is --agent the URL of an acceld's --metrics-address?");
    }
    // One entry per physical device: replicas of a shared GPU are rows of their own.
    Map<String, String> advertised = new LinkedHashMap<>();
    List<String> unhealthy = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      String id = String.valueOf(row.getOrDefault("physicalId", row.get("id")));
      String health = String.valueOf(row.get("health"));
      if (advertised.put(id, health) == null && !"Healthy".equals(health)) {
        unhealthy.add(
            ClientText.escape(id)
                + " "
                + ClientText.escape(health)
                + (row.get("healthReason") == null
                    ? ""
                    : " (" + ClientText.escape(String.valueOf(row.get("healthReason"))) + ")"));
      }
    }
    List<String> problems = new ArrayList<>();
    if (!unhealthy.isEmpty()) {
      problems.add("it marks " + String.join("; ", unhealthy));
    }
    if (e.inventory() instanceof Bounded.Outcome.Done<?>) {
      Set<String> found = new TreeSet<>();
      e.devices().stream().map(Device::id).forEach(found::add);
      Set<String> extra = new TreeSet<>(advertised.keySet());
      extra.removeAll(found);
      Set<String> absent = new TreeSet<>(found);
      absent.removeAll(advertised.keySet());
      if (!extra.isEmpty()) {
        problems.add(
            "it advertises "
                + extra.stream().map(ClientText::escape).toList()
                + ", which this node's discovery does not find");
      }
      if (!absent.isEmpty()) {
        problems.add(
            "it does not advertise "
                + absent.stream().map(ClientText::escape).toList()
                + ", which discovery finds");
      }
    }
    if (problems.isEmpty()) {
      return Finding.pass(
              CHECK,
              subject,
              url
                  + ": advertises "
                  + advertised.size()
                  + " device(s), all Healthy"
                  + (e.inventory() instanceof Bounded.Outcome.Done<?>
                      ? ", the ones discovery finds"
                      : ""))
          .with("advertised", advertised.size());
    }
    return Finding.fail(
            CHECK,
            subject,
            url + ": " + String.join("; ", problems),
            "for a device marked for an XID, ECC error or lost GPU: drain it and reset the GPU"
                + " (nvidia-smi -r -i <index>) or reboot, then restart the agent (marks last"
                + " --health-quarantine, forever by default); a device discovery and the agent"
                + " disagree on is seen at the agent's next rescan (--rescan-interval), or runs"
                + " with other settings than doctor was given")
        .with("advertised", advertised.size())
        .with("unhealthy", unhealthy.size());
  }

  private static List<String> lines(String body) {
    return body.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  /** At most a few of a peer's lines, each escaped. */
  private static String shown(List<String> lines) {
    List<String> shown = new ArrayList<>();
    for (int i = 0; i < Math.min(lines.size(), MAX_SHOWN_LINES); i++) {
      shown.add(ClientText.quote(lines.get(i)));
    }
    if (lines.size() > MAX_SHOWN_LINES) {
      shown.add("and " + (lines.size() - MAX_SHOWN_LINES) + " more");
    }
    return shown.isEmpty() ? "(no reason given)" : String.join(", ", shown);
  }
}
