package io.acceld.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.acceld.config.ConfigException;
import io.acceld.util.ClientText;
import io.acceld.util.JsonNodes;
import io.acceld.util.Pem;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the API server the way kubectl and client-go do, in this order: {@code --kubeconfig FILE};
 * else {@code $KUBECONFIG} (only its first file: merging a list of kubeconfigs is not supported,
 * and the message says which file was read); else in-cluster, from {@code KUBERNETES_SERVICE_HOST}
 * / {@code KUBERNETES_SERVICE_PORT} and the pod's service-account directory.
 *
 * <p>Of a kubeconfig, the current context's cluster ({@code server}, {@code certificate-authority},
 * {@code certificate-authority-data}, {@code insecure-skip-tls-verify}) and user ({@code token},
 * {@code tokenFile}, {@code client-certificate[-data]}, {@code client-key[-data]}) are read; {@code
 * exec} and {@code auth-provider} users are refused with a message saying so. Relative file names
 * are relative to the kubeconfig's directory, as kubectl reads them.
 */
public final class KubeConfigLoader {
  /** Where the kubelet mounts a pod's service-account token, CA and namespace. */
  public static final Path SERVICE_ACCOUNT_DIR =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private static final Logger log = LoggerFactory.getLogger(KubeConfigLoader.class);

  /** Read into trees by {@link JsonNodes}: an object mapper would be ~300 classes for one file. */
  private static final YAMLFactory YAML = new YAMLFactory();

  private KubeConfigLoader() {}

  /**
   * The connection for {@code kubeconfigFlag} (empty: not given), the process environment {@code
   * env} and the service-account directory {@code serviceAccountDir}.
   *
   * @throws ConfigException naming the file or variable and what is wrong with it
   */
  public static KubeConfig load(
      String kubeconfigFlag, Map<String, String> env, Path serviceAccountDir) {
    if (!kubeconfigFlag.isBlank()) {
      return fromFile(Path.of(kubeconfigFlag.strip()), "--kubeconfig");
    }
    String list = env.getOrDefault("KUBECONFIG", "");
    for (String file : list.split(File.pathSeparator, -1)) {
      if (!file.isBlank()) {
        return fromFile(Path.of(file.strip()), "the first file of $KUBECONFIG");
      }
    }
    return inCluster(env, serviceAccountDir);
  }

  /** In-cluster: the service's address from the environment, the pod's token and CA. */
  public static KubeConfig inCluster(Map<String, String> env, Path serviceAccountDir) {
    String host = env.getOrDefault("KUBERNETES_SERVICE_HOST", "");
    String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "");
    if (host.isBlank() || port.isBlank()) {
      throw new ConfigException(
          "--dra-driver needs the Kubernetes API server: give --kubeconfig or $KUBECONFIG, or run"
              + " in a pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)");
    }
    if (!port.matches("[0-9]{1,5}")) {
      throw new ConfigException(
          "KUBERNETES_SERVICE_PORT " + ClientText.quote(port) + " is not a port number");
    }
    // An IPv6 service address needs brackets in a URL.
    String authority = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    URI server = uri("https://" + authority + ":" + port, "KUBERNETES_SERVICE_HOST");
    Path token = serviceAccountDir.resolve("token");
    Path ca = serviceAccountDir.resolve("ca.crt");
    if (!Files.isReadable(token)) {
      throw new ConfigException(
          "in-cluster configuration needs the service-account token "
              + token
              + ", which cannot be read; is automountServiceAccountToken off?");
    }
    List<Certificate> authorities =
        Files.exists(ca) ? certificates(read(ca), ca.toString()) : List.of();
    return new KubeConfig(
        server,
        authorities,
        false,
        new TokenSource.RotatingFile(token),
        Optional.empty(),
        "in-cluster service account " + serviceAccountDir);
  }

  /** The current context of the kubeconfig {@code file}; {@code how} says how it was named. */
  public static KubeConfig fromFile(Path file, String how) {
    JsonNode root;
    try {
      try (JsonParser parser = YAML.createParser(read(file))) {
        root = JsonNodes.parse(parser);
      }
    } catch (IOException e) {
      throw new ConfigException(
          "kubeconfig " + file + " (" + how + ") is not YAML: " + firstLine(e.getMessage()), e);
    }
    if (root == null || !root.isObject()) {
      throw new ConfigException("kubeconfig " + file + " (" + how + ") is empty or not a mapping");
    }
    Path dir = file.toAbsolutePath().getParent();
    String inFile = "kubeconfig " + file;
    String contextName = text(root, "current-context");
    if (contextName.isEmpty()) {
      throw new ConfigException(inFile + " has no current-context");
    }
    JsonNode context = named(root, "contexts", contextName, "context", inFile);
    String clusterName = text(context, "cluster");
    String userName = text(context, "user");
    JsonNode cluster = named(root, "clusters", clusterName, "cluster", inFile);
    JsonNode user =
        userName.isEmpty() ? JsonNodes.object() : named(root, "users", userName, "user", inFile);
    String where = inFile + ", context " + ClientText.quote(contextName);

    String server = text(cluster, "server");
    if (server.isEmpty()) {
      throw new ConfigException(
          where + ": cluster " + ClientText.quote(clusterName) + " has no server");
    }
    URI uri = uri(server, where + " server");
    List<Certificate> authorities =
        pemField(cluster, "certificate-authority", dir, where)
            .map(pem -> certificates(pem, where + " certificate-authority"))
            .orElse(List.of());
    boolean insecure = cluster.path("insecure-skip-tls-verify").asBoolean(false);

    if (user.has("exec") || user.has("auth-provider")) {
      throw new ConfigException(
          where
              + ": user "
              + ClientText.quote(userName)
              + " authenticates with exec or auth-provider, which acceld does not run; use a"
              + " token, tokenFile or client certificate");
    }
    TokenSource token = new TokenSource.None();
    if (!text(user, "token").isEmpty()) {
      token = new TokenSource.Fixed(text(user, "token"));
    } else if (!text(user, "tokenFile").isEmpty()) {
      token = new TokenSource.RotatingFile(dir.resolve(text(user, "tokenFile")));
    }
    Optional<byte[]> certificate = pemField(user, "client-certificate", dir, where);
    Optional<byte[]> key = pemField(user, "client-key", dir, where);
    if (certificate.isPresent() != key.isPresent()) {
      throw new ConfigException(
          where
              + ": user "
              + ClientText.quote(userName)
              + " has a client certificate or key, not both");
    }
    Optional<KubeConfig.ClientIdentity> identity =
        certificate.map(
            c ->
                new KubeConfig.ClientIdentity(
                    certificates(c, "the client-certificate of " + where),
                    privateKey(key.get(), "the client-key of " + where)));
    if (!uri.getScheme().equals("https")
        && (identity.isPresent() || !(token instanceof TokenSource.None))) {
      // Not an error (a test server, a local proxy), but credentials go in clear text.
      log.warn("{}: server {} is not https; credentials are sent unencrypted", where, uri);
    }
    return new KubeConfig(uri, authorities, insecure, token, identity, where + " (" + how + ")");
  }

  /** {@code <field>-data} (base64 PEM) or {@code <field>} (a file), whichever is set. */
  private static Optional<byte[]> pemField(JsonNode node, String field, Path dir, String where) {
    String data = text(node, field + "-data");
    if (!data.isEmpty()) {
      try {
        return Optional.of(Base64.getMimeDecoder().decode(data));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(where + ": " + field + "-data is not base64", e);
      }
    }
    String file = text(node, field);
    return file.isEmpty() ? Optional.empty() : Optional.of(read(dir.resolve(file)));
  }

  /** The {@code inner} map of the entry named {@code name} of the list {@code list}. */
  private static JsonNode named(
      JsonNode root, String list, String name, String inner, String where) {
    for (JsonNode entry : root.path(list)) {
      if (name.equals(text(entry, "name"))) {
        JsonNode value = entry.path(inner);
        if (!value.isObject()) {
          throw new ConfigException(
              where + ": " + list + " entry " + ClientText.quote(name) + " has no " + inner);
        }
        return value;
      }
    }
    throw new ConfigException(where + ": no " + list + " entry named " + ClientText.quote(name));
  }

  private static List<Certificate> certificates(byte[] pem, String source) {
    try {
      return Pem.certificates(pem, source);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(byte[] pem, String source) {
    try {
      return Pem.privateKey(new String(pem, StandardCharsets.US_ASCII), source);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isValueNode() ? value.asText("").strip() : "";
  }

  private static URI uri(String text, String where) {
    try {
      URI uri = new URI(text);
      if (!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme())
          || uri.getHost() == null) {
        throw new ConfigException(where + ": " + ClientText.quote(text) + " is not an http(s) URL");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ConfigException(where + ": " + ClientText.quote(text) + " is not a URL", e);
    }
  }

  private static byte[] read(Path file) {
    try {
      if (Files.size(file) > 1 << 20) {
        throw new ConfigException(
            file + " is larger than 1 MiB; not a kubeconfig, token or PEM file");
      }
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e, e);
    }
  }

  private static String firstLine(String message) {
    String text = message == null ? "" : message;
    int newline = text.indexOf('\n');
    return ClientText.escape(newline < 0 ? text : text.substring(0, newline));
  }
}
