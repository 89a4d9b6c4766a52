package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.config.RegistrationMode;
import io.acceld.config.Settings;
import io.acceld.transport.UnixGrpc;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kubelet's side: the directory the agent serves in, {@code kubelet.sock} dialled as the agent
 * dials it to register (no Register is sent), the plugin-watcher registry, and the pod-resources
 * socket the agent polls to learn which pod holds which device. Which of them the agent needs
 * follows {@code --kubelet-registration}; the rest are skipped.
 */
final class KubeletChecks {
  static final String CHECK = "kubelet";
  static final String KUBELET_SOCKET = "kubelet.sock";

  private KubeletChecks() {}

  static List<Finding> of(AgentConfig config, UnixGrpc grpc, Duration limit) {
    RegistrationMode mode = config.get(Settings.KUBELET_REGISTRATION);
    Path pluginDir = config.get(Settings.DEVICE_PLUGIN_DIR);
    Path registry = config.get(Settings.PLUGINS_REGISTRY_DIR);
    List<Finding> findings = new ArrayList<>();
    String notUsed = "not used with --kubelet-registration " + mode;
    if (mode == RegistrationMode.PLUGIN_WATCHER) {
      findings.add(Finding.skip(CHECK, "kubelet device-plugin dir", notUsed));
      findings.add(Finding.skip(CHECK, "kubelet socket", notUsed));
      findings.add(directory("kubelet plugins registry", registry, "--plugins-registry-dir"));
    } else {
      findings.add(directory("kubelet device-plugin dir", pluginDir, "--device-plugin-dir"));
      findings.add(
          mode == RegistrationMode.CLASSIC
              ? socket(
                  "kubelet socket",
                  pluginDir.resolve(KUBELET_SOCKET),
                  grpc,
                  limit,
                  "start the kubelet (systemctl start kubelet), which creates it; if it runs with"
                      + " another --root-dir, set --device-plugin-dir to <root-dir>/device-plugins;"
                      + " in a container, mount that directory",
                  "registering would work: the kubelet answers on it (dialled; no Register sent)")
              : Finding.skip(CHECK, "kubelet socket", notUsed));
      findings.add(Finding.skip(CHECK, "kubelet plugins registry", notUsed));
    }
    findings.add(
        socket(
            "kubelet pod-resources",
            config.get(Settings.POD_RESOURCES_SOCKET),
            grpc,
            limit,
            "the kubelet serves it at <root-dir>/pod-resources/kubelet.sock (Kubernetes 1.20"
                + " and later): set --pod-resources-socket to it, or mount it into the agent's"
                + " container; without it the agent cannot tell which pod holds a device",
            "the kubelet answers on it (dialled; nothing listed)"));
    return findings;
  }

  private static Finding directory(String subject, Path dir, String flag) {
    if (Files.isDirectory(dir)) {
      return Finding.pass(CHECK, subject, dir + " exists" + ourSockets(dir));
    }
    return Finding.fail(
        CHECK,
        subject,
        dir + (Files.exists(dir) ? " is not a directory" : " is missing"),
        "start the kubelet, which creates it (the agent never does); if the kubelet runs with"
            + " another --root-dir, set "
            + flag
            + " to the directory under it; in a container, mount it from the host");
  }

  /** acceld's own sockets in {@code dir}: a running agent's, or an earlier one's. */
  private static String ourSockets(Path dir) {
    List<String> ours = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "acceld-*.sock")) {
      entries.forEach(p -> ours.add(p.getFileName().toString()));
    } catch (IOException e) {
      return " (unreadable: " + e.getMessage() + ")";
    }
    ours.sort(null);
    return ours.isEmpty() ? "" : " (acceld's sockets: " + String.join(", ", ours) + ")";
  }

  private static Finding socket(
      String subject, Path socket, UnixGrpc grpc, Duration limit, String fixMissing, String ok) {
    Optional<NodeFile> stat;
    try {
      stat = NodeFile.stat(socket);
    } catch (IOException e) {
      return Finding.fail(CHECK, subject, socket + " cannot be read: " + e, fixMissing);
    }
    if (stat.isEmpty()) {
      return Finding.fail(CHECK, subject, socket + " is missing", fixMissing);
    }
    if (stat.get().type() != NodeFile.Type.SOCKET) {
      return Finding.fail(
          CHECK,
          subject,
          socket + " is " + stat.get().type() + ", not a socket",
          "remove it and restart the kubelet, which creates the socket");
    }
    Optional<String> problem = SocketDial.dial(grpc, socket, limit);
    if (problem.isPresent()) {
      return Finding.fail(
          CHECK,
          subject,
          socket + ": " + problem.get(),
          "nothing serves it (a socket left behind by a stopped kubelet?): restart the kubelet"
              + " (systemctl restart kubelet) and check its log (journalctl -u kubelet)");
    }
    return Finding.pass(CHECK, subject, socket + ": " + ok);
  }
}
