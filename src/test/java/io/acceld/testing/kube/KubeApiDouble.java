package io.acceld.testing.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.acceld.dra.apiserver.SliceValidator;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;

/**
 * A stand-in for the Kubernetes API server, on loopback over real HTTP, speaking its JSON for what
 * the DRA side uses: {@code resource.k8s.io/v1} ResourceSlices (create with {@code generateName},
 * get, list and watch with {@code fieldSelector} on {@code spec.nodeName} / {@code spec.driver} /
 * {@code metadata.name} and equality {@code labelSelector}s, update with a resourceVersion check
 * answering 409, delete), ResourceClaims and Nodes (get, seeded by the test). Slice writes are
 * checked by {@link SliceValidator} and by the immutable fields, answering 422 with a Status as the
 * real server does. Watches are chunked JSON event streams that resume from a resourceVersion, send
 * bookmarks, honour {@code timeoutSeconds}, and answer an ERROR event with code 410 for a version
 * older than the last {@link #compact()}.
 *
 * <p>Faults: {@link #down()}/{@link #up()} (connections refused), {@link #failWith(int)} (every
 * request answers that status), {@link #delay(Duration)}, {@link #dropWatches()}, {@link
 * #requireToken(String)} (401 otherwise). Every request is counted by verb ({@code get}, {@code
 * list}, {@code watch}, {@code create}, {@code update}, {@code delete}) for benchmarks and tests.
 */
public final class KubeApiDouble implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  static {
    // The JDK's HttpServer writes a response's headers and body in separate segments without
    // TCP_NODELAY: with the client's delayed ACK every answer waited ~40 ms on loopback (a GET of
    // a claim took 48 ms at p50), which the API server (Go, TCP_NODELAY on) never adds. Read once,
    // when the JDK's server first starts in this JVM.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
  private static final String CLAIMS_PREFIX = "/apis/resource.k8s.io/v1/namespaces/";
  private static final String NODES = "/api/v1/nodes/";
  private static final String NODE_FEATURES_PREFIX = "/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/";
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

  /** One change, as a watch sends it. */
  private record Event(long rv, String type, ObjectNode object) {}

  private final int port;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(new NamedThreads("kube-api-double"));
  private final Random random = new Random(42);

  @GuardedBy("this")
  private HttpServer server;

  @GuardedBy("this")
  private final Map<String, ObjectNode> slices = new TreeMap<>();

  @GuardedBy("this")
  private final List<Event> events = new ArrayList<>();

  @GuardedBy("this")
  private long resourceVersion = 100;

  @GuardedBy("this")
  private long compactedBefore;

  @GuardedBy("this")
  private long watchGeneration;

  @GuardedBy("this")
  private int openWatches;

  @GuardedBy("this")
  private final Map<String, String> nodes = new LinkedHashMap<>();

  @GuardedBy("this")
  private final Map<String, byte[]> claims = new LinkedHashMap<>();

  /** NFD NodeFeature objects by {@code namespace/name}. */
  private final Map<String, ObjectNode> nodeFeatures = new TreeMap<>();

  @GuardedBy("this")
  private final Map<String, Long> counts = new TreeMap<>();

  @GuardedBy("this")
  private int failStatus;

  @GuardedBy("this")
  private Duration delay = Duration.ZERO;

  @GuardedBy("this")
  private Optional<String> token = Optional.empty();

  private volatile java.util.function.Consumer<ObjectNode> defaulting = s -> {};

  /** The server's identity when it serves HTTPS (and the CA a kubeconfig names), else null. */
  private final Tls tls;

  /** A certificate for {@code localhost} (PEM) and the server context that presents it. */
  public record Tls(byte[] certificatePem, SSLContext context) {}

  private KubeApiDouble(int port, Tls tls) {
    this.port = port;
    this.tls = tls;
  }

  /** A double on a free loopback port, serving plain HTTP. */
  public static KubeApiDouble start() throws IOException {
    return start(null);
  }

  /**
   * A double on a free loopback port, serving HTTPS with {@code tls} (plain HTTP when null), as
   * {@code localhost}; its {@link #kubeconfig} names the certificate as the cluster's CA.
   */
  public static KubeApiDouble start(Tls tls) throws IOException {
    HttpServer probe = listen(0, tls);
    int port = probe.getAddress().getPort();
    KubeApiDouble api = new KubeApiDouble(port, tls);
    synchronized (api) {
      api.server = probe;
      api.serve();
    }
    return api;
  }

  private static HttpServer listen(int port, Tls tls) throws IOException {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    if (tls == null) {
      return HttpServer.create(address, 0);
    }
    HttpsServer https = HttpsServer.create(address, 0);
    https.setHttpsConfigurator(new HttpsConfigurator(tls.context()));
    return https;
  }

  /** The base URL, as a kubeconfig's {@code server}. */
  public URI url() {
    return URI.create(tls == null ? "http://127.0.0.1:" + port : "https://localhost:" + port);
  }

  /** Writes a kubeconfig for this server with {@code bearer} (none when null) into {@code dir}. */
  public Path kubeconfig(Path dir, String bearer) throws IOException {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
            + "clusters:\n- name: double\n  cluster:\n    server: "
            + url()
            + (tls == null
                ? ""
                : "\n    certificate-authority-data: "
                    + Base64.getEncoder().encodeToString(tls.certificatePem()))
            + "\ncontexts:\n- name: test\n  context:\n    cluster: double\n    user: agent\n"
            + "users:\n- name: agent\n  user:\n"
            + (bearer == null ? "    {}\n" : "    token: " + bearer + "\n"));
    return file;
  }

  // ---- seeding and reading state ----

  public synchronized void addNode(String name, String uid) {
    nodes.put(name, uid);
  }

  /** A ResourceClaim GET answers {@code body} as it is: JSON, or anything a test wants. */
  public synchronized void putClaim(String namespace, String name, byte[] body) {
    claims.put(namespace + "/" + name, body.clone());
  }

  public void putClaim(String namespace, String name, String json) {
    putClaim(namespace, name, json.getBytes(StandardCharsets.UTF_8));
  }

  /** Every slice, by name. */
  public synchronized List<JsonNode> slices() {
    return slices.values().stream().map(s -> (JsonNode) s.deepCopy()).toList();
  }

  /** The slices of {@code driver} on {@code node}, by name. */
  public synchronized List<JsonNode> slices(String node, String driver) {
    return slices.values().stream()
        .filter(
            s ->
                node.equals(s.path("spec").path("nodeName").asText())
                    && driver.equals(s.path("spec").path("driver").asText()))
        .map(s -> (JsonNode) s.deepCopy())
        .toList();
  }

  /** As the kubelet does when it starts: deletes every slice of {@code node}, any driver. */
  public synchronized void deleteSlicesOf(String node) {
    for (String name : List.copyOf(slices.keySet())) {
      if (node.equals(slices.get(name).path("spec").path("nodeName").asText())) {
        removeSlice(name);
      }
    }
  }

  /** Someone else's update of a stored slice: {@code change} edits a copy, stored as is. */
  public synchronized void modifySlice(
      String name, java.util.function.Consumer<ObjectNode> change) {
    ObjectNode copy = Objects.requireNonNull(slices.get(name), name).deepCopy();
    change.accept(copy);
    copy.with("metadata").put("resourceVersion", Long.toString(++resourceVersion));
    slices.put(name, copy);
    record("MODIFIED", copy);
  }

  /** Forgets the event history: a watch from any earlier resourceVersion gets 410 Gone. */
  public synchronized void compact() {
    events.clear();
    compactedBefore = resourceVersion + 1;
  }

  // ---- faults ----

  /** Stops listening: connections are refused, open watches break. */
  public synchronized void down() {
    if (server != null) {
      server.stop(0);
      server = null;
      watchGeneration++;
      notifyAll();
    }
  }

  /** Listens again on the same port. */
  public synchronized void up() throws IOException {
    if (server == null) {
      server = listen(port, tls);
      serve();
    }
  }

  /** Every request answers {@code status} with a Status body; 0 to answer normally again. */
  public synchronized void failWith(int status) {
    failStatus = status;
  }

  /** Every request waits {@code delay} before it is handled. */
  public synchronized void delay(Duration value) {
    delay = value;
  }

  /** Ends every open watch, as a server restart or a load balancer does. */
  public synchronized void dropWatches() {
    watchGeneration++;
    notifyAll();
  }

  /** Requests without {@code Authorization: Bearer <bearer>} get 401. */
  public synchronized void requireToken(String bearer) {
    token = Optional.of(bearer);
  }

  // ---- counting ----

  /** Requests of {@code verb} so far. */
  public synchronized long requests(String verb) {
    return counts.getOrDefault(verb, 0L);
  }

  /** Every request so far. */
  public synchronized long requests() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  public synchronized Map<String, Long> requestCounts() {
    return Map.copyOf(counts);
  }

  public synchronized void resetCounts() {
    counts.clear();
  }

  public synchronized int openWatches() {
    return openWatches;
  }

  @Override
  public void close() {
    down();
    executor.shutdownNow();
  }

  // ---- serving ----

  @GuardedBy("this")
  private void serve() {
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getRawPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      String verb = verb(method, path, query);
      Duration wait;
      int fail;
      Optional<String> expected;
      synchronized (this) {
        counts.merge(verb, 1L, Long::sum);
        wait = delay;
        fail = failStatus;
        expected = token;
      }
      if (!wait.isZero()) {
        sleep(wait);
      }
      if (fail != 0) {
        status(exchange, fail, "Injected", "injected failure " + fail);
        return;
      }
      if (expected.isPresent()
          && !("Bearer " + expected.get())
              .equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        status(exchange, 401, "Unauthorized", "Unauthorized");
        return;
      }
      byte[] body = exchange.getRequestBody().readAllBytes();
      route(exchange, verb, path, query, body);
    } catch (RuntimeException e) {
      status(exchange, 500, "InternalError", "double failed: " + e);
    }
  }

  private static String verb(String method, String path, Map<String, String> query) {
    return switch (method) {
      case "GET" -> {
        if ("true".equals(query.get("watch"))) {
          yield "watch";
        }
        yield path.equals(SLICES) ? "list" : "get";
      }
      case "POST" -> "create";
      case "PUT" -> "update";
      case "DELETE" -> "delete";
      default -> method.toLowerCase(java.util.Locale.ROOT);
    };
  }

  private void route(
      HttpExchange exchange, String verb, String path, Map<String, String> query, byte[] body)
      throws IOException {
    if (path.startsWith(NODES)) {
      String name = decode(path.substring(NODES.length()));
      String uid;
      synchronized (this) {
        uid = nodes.get(name);
      }
      if (uid == null) {
        status(exchange, 404, "NotFound", "nodes \"" + name + "\" not found");
        return;
      }
      ObjectNode node = JSON.createObjectNode().put("kind", "Node").put("apiVersion", "v1");
      node.putObject("metadata").put("name", name).put("uid", uid);
      json(exchange, 200, node);
      return;
    }
    if (path.startsWith(CLAIMS_PREFIX) && path.contains("/resourceclaims/")) {
      String[] parts = path.substring(CLAIMS_PREFIX.length()).split("/");
      String key = decode(parts[0]) + "/" + decode(parts[parts.length - 1]);
      byte[] claim;
      synchronized (this) {
        claim = claims.get(key);
      }
      if (claim == null) {
        status(
            exchange,
            404,
            "NotFound",
            "resourceclaims.resource.k8s.io \"" + parts[parts.length - 1] + "\" not found");
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, claim.length);
      exchange.getResponseBody().write(claim);
      return;
    }
    if (path.startsWith(NODE_FEATURES_PREFIX) && path.contains("/nodefeatures")) {
      nodeFeature(exchange, verb, path, body);
      return;
    }
    if (!path.startsWith(SLICES)) {
      status(exchange, 404, "NotFound", "the server could not find the requested resource");
      return;
    }
    String name =
        path.length() > SLICES.length() + 1 ? decode(path.substring(SLICES.length() + 1)) : "";
    switch (verb) {
      case "watch" -> watch(exchange, query);
      case "list" -> json(exchange, 200, list(query));
      case "get" -> {
        ObjectNode slice;
        synchronized (this) {
          slice = slices.get(name);
        }
        if (slice == null) {
          notFound(exchange, name);
        } else {
          json(exchange, 200, slice);
        }
      }
      case "create" -> create(exchange, body);
      case "update" -> update(exchange, name, body);
      case "delete" -> {
        boolean removed;
        synchronized (this) {
          removed = slices.containsKey(name);
          if (removed) {
            removeSlice(name);
          }
        }
        if (removed) {
          status(exchange, 200, "", "deleted");
        } else {
          notFound(exchange, name);
        }
      }
      default -> status(exchange, 405, "MethodNotAllowed", "method not allowed");
    }
  }

  private synchronized ObjectNode list(Map<String, String> query) {
    Predicate<JsonNode> selected = selector(query);
    ObjectNode list = JSON.createObjectNode();
    list.put("kind", "ResourceSliceList").put("apiVersion", "resource.k8s.io/v1");
    list.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
    var items = list.putArray("items");
    slices.values().stream().filter(selected).forEach(items::add);
    return list;
  }

  private void create(HttpExchange exchange, byte[] body) throws IOException {
    ObjectNode slice = (ObjectNode) JSON.readTree(body);
    ObjectNode metadata = slice.with("metadata");
    List<String> problems = SliceValidator.validate(slice);
    if (!problems.isEmpty()) {
      invalid(
          exchange, metadata.path("name").asText(metadata.path("generateName").asText()), problems);
      return;
    }
    synchronized (this) {
      String name = metadata.path("name").asText("");
      if (name.isEmpty()) {
        StringBuilder generated = new StringBuilder(metadata.path("generateName").asText());
        for (int i = 0; i < 5; i++) {
          generated.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
        }
        name = generated.toString();
      }
      if (slices.containsKey(name)) {
        status(
            exchange,
            409,
            "AlreadyExists",
            "resourceslices.resource.k8s.io \"" + name + "\" already exists");
        return;
      }
      metadata.put("name", name);
      metadata.put(
          "uid",
          java.util.UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString());
      metadata.put("creationTimestamp", Instant.now().toString());
      metadata.put("resourceVersion", Long.toString(++resourceVersion));
      omitEmpty(slice);
      slices.put(name, slice);
      record("ADDED", slice);
    }
    json(exchange, 201, slice);
  }

  private void update(HttpExchange exchange, String name, byte[] body) throws IOException {
    ObjectNode slice = (ObjectNode) JSON.readTree(body);
    ObjectNode metadata = slice.with("metadata");
    List<String> problems = new ArrayList<>(SliceValidator.validate(slice));
    String rv = metadata.path("resourceVersion").asText("");
    if (rv.isEmpty()) {
      problems.add("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update");
    }
    synchronized (this) {
      ObjectNode old = slices.get(name);
      if (old == null) {
        notFound(exchange, name);
        return;
      }
      for (String field : List.of("driver", "nodeName")) {
        if (!old.path("spec").path(field).equals(slice.path("spec").path(field))) {
          problems.add("spec." + field + ": Invalid value: field is immutable");
        }
      }
      if (!old.path("spec")
          .path("pool")
          .path("name")
          .equals(slice.path("spec").path("pool").path("name"))) {
        problems.add("spec.pool.name: Invalid value: field is immutable");
      }
      if (!problems.isEmpty()) {
        invalid(exchange, name, problems);
        return;
      }
      if (!rv.equals(old.path("metadata").path("resourceVersion").asText())) {
        status(
            exchange,
            409,
            "Conflict",
            "Operation cannot be fulfilled on resourceslices.resource.k8s.io \""
                + name
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again");
        return;
      }
      metadata.put("name", name);
      metadata.put("uid", old.path("metadata").path("uid").asText());
      metadata.put("creationTimestamp", old.path("metadata").path("creationTimestamp").asText());
      metadata.put("resourceVersion", Long.toString(++resourceVersion));
      omitEmpty(slice);
      slices.put(name, slice);
      record("MODIFIED", slice);
    }
    json(exchange, 200, slice);
  }

  @GuardedBy("this")
  private void removeSlice(String name) {
    ObjectNode gone = slices.remove(name);
    gone.with("metadata").put("resourceVersion", Long.toString(++resourceVersion));
    record("DELETED", gone);
  }

  /**
   * As the real server stores an object: empty lists left out (Go's omitempty), and whatever {@link
   * #defaulting} adds (as a newer API version's defaults would).
   */
  private void omitEmpty(ObjectNode slice) {
    JsonNode devices = slice.path("spec").path("devices");
    if (devices.isArray() && devices.isEmpty()) {
      slice.with("spec").remove("devices");
    }
    defaulting.accept(slice);
  }

  /** Changes every slice as it is stored, as server-side defaulting does. */
  public void defaulting(java.util.function.Consumer<ObjectNode> change) {
    defaulting = Objects.requireNonNull(change, "change");
  }

  @GuardedBy("this")
  private void record(String type, ObjectNode object) {
    events.add(new Event(resourceVersion, type, object.deepCopy()));
    notifyAll();
  }

  private void watch(HttpExchange exchange, Map<String, String> query) throws IOException {
    Predicate<JsonNode> selected = selector(query);
    String from = query.getOrDefault("resourceVersion", "");
    long timeout = Long.parseLong(query.getOrDefault("timeoutSeconds", "1800"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    long generation;
    long last;
    List<Event> initial = new ArrayList<>();
    synchronized (this) {
      generation = watchGeneration;
      openWatches++;
      if (from.isEmpty() || from.equals("0")) {
        slices.values().stream()
            .filter(selected)
            .forEach(s -> initial.add(new Event(0, "ADDED", s.deepCopy())));
        last = resourceVersion;
      } else {
        last = Long.parseLong(from);
        if (last < compactedBefore - 1) {
          ObjectNode gone = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
          gone.put("status", "Failure").put("reason", "Expired").put("code", 410);
          gone.put(
              "message", "too old resource version: " + last + " (" + (compactedBefore - 1) + ")");
          initial.add(new Event(-1, "ERROR", gone));
        }
      }
    }
    try {
      for (Event e : initial) {
        send(out, e);
        if (e.type().equals("ERROR")) {
          return;
        }
      }
      while (true) {
        List<Event> next = new ArrayList<>();
        synchronized (this) {
          while (true) {
            if (watchGeneration != generation) {
              return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
              return;
            }
            for (Event e : events) {
              if (e.rv() > last && selected.test(e.object())) {
                next.add(e);
              }
            }
            if (!events.isEmpty()) {
              last = Math.max(last, events.get(events.size() - 1).rv());
            }
            if (!next.isEmpty()) {
              break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
          }
        }
        for (Event e : next) {
          send(out, e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the client went away
    } finally {
      synchronized (this) {
        openWatches--;
      }
    }
  }

  private static void send(OutputStream out, Event e) throws IOException {
    ObjectNode event = JSON.createObjectNode().put("type", e.type());
    event.set("object", e.object());
    out.write(JSON.writeValueAsBytes(event));
    out.write('\n');
    out.flush();
  }

  /**
   * {@code fieldSelector} (spec.nodeName, spec.driver, metadata.name) and {@code labelSelector}.
   */
  private static Predicate<JsonNode> selector(Map<String, String> query) {
    Predicate<JsonNode> all = s -> true;
    for (String term : query.getOrDefault("fieldSelector", "").split(",")) {
      if (term.isBlank()) {
        continue;
      }
      String[] kv = term.split("=", 2);
      String value = kv.length > 1 ? kv[1] : "";
      String[] path = kv[0].split("\\.");
      if (!List.of("spec.nodeName", "spec.driver", "metadata.name").contains(kv[0])) {
        throw new IllegalArgumentException("field selector " + kv[0] + " is not supported");
      }
      all = all.and(s -> value.equals(s.path(path[0]).path(path[1]).asText()));
    }
    for (String term : query.getOrDefault("labelSelector", "").split(",")) {
      if (term.isBlank()) {
        continue;
      }
      String[] kv = term.split("=", 2);
      all =
          all.and(
              s ->
                  (kv.length > 1 ? kv[1] : "")
                      .equals(s.path("metadata").path("labels").path(kv[0]).asText(null)));
    }
    return all;
  }

  private static void invalid(HttpExchange exchange, String name, List<String> problems)
      throws IOException {
    status(
        exchange,
        422,
        "Invalid",
        "ResourceSlice.resource.k8s.io \""
            + name
            + "\" is invalid: "
            + String.join(", ", problems));
  }

  private static void notFound(HttpExchange exchange, String name) throws IOException {
    status(exchange, 404, "NotFound", "resourceslices.resource.k8s.io \"" + name + "\" not found");
  }

  /** The NodeFeature objects stored, by {@code namespace/name}. */
  public synchronized Map<String, JsonNode> nodeFeatures() {
    return Map.copyOf(nodeFeatures);
  }

  /** Deletes every NodeFeature, as an operator's cleanup would. */
  public synchronized void deleteNodeFeatures() {
    nodeFeatures.clear();
  }

  /** GET, POST (create), PUT (update with a resourceVersion check) and DELETE of NodeFeatures. */
  private void nodeFeature(HttpExchange exchange, String verb, String path, byte[] body)
      throws IOException {
    String[] parts = path.substring(NODE_FEATURES_PREFIX.length()).split("/");
    String namespace = decode(parts[0]);
    String name = parts.length > 2 ? decode(parts[2]) : "";
    ObjectNode stored;
    synchronized (this) {
      stored = nodeFeatures.get(namespace + "/" + name);
    }
    switch (verb) {
      case "get", "delete" -> {
        if (stored == null) {
          status(exchange, 404, "NotFound", "nodefeatures \"" + name + "\" not found");
        } else if (verb.equals("get")) {
          json(exchange, 200, stored);
        } else {
          synchronized (this) {
            nodeFeatures.remove(namespace + "/" + name);
          }
          json(exchange, 200, stored);
        }
      }
      case "create", "update" -> {
        ObjectNode object = (ObjectNode) JSON.readTree(body);
        String objectName = object.path("metadata").path("name").asText("");
        String key = namespace + "/" + objectName;
        synchronized (this) {
          ObjectNode existing = nodeFeatures.get(key);
          if (verb.equals("create") && existing != null) {
            status(exchange, 409, "AlreadyExists", "nodefeatures \"" + objectName + "\" exists");
            return;
          }
          if (verb.equals("update")) {
            if (existing == null) {
              status(exchange, 404, "NotFound", "nodefeatures \"" + objectName + "\" not found");
              return;
            }
            String sent = object.path("metadata").path("resourceVersion").asText("");
            if (!sent.equals(existing.path("metadata").path("resourceVersion").asText())) {
              status(exchange, 409, "Conflict", "the object has been modified");
              return;
            }
          }
          ((ObjectNode) object.path("metadata"))
              .put("namespace", namespace)
              .put("resourceVersion", Long.toString(++resourceVersion));
          nodeFeatures.put(key, object);
        }
        json(exchange, verb.equals("create") ? 201 : 200, object);
      }
      default -> status(exchange, 405, "MethodNotAllowed", verb + " is not served here");
    }
  }

  private static void status(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
    status.put("status", code < 300 ? "Success" : "Failure").put("message", message);
    status.put("reason", reason).put("code", code);
    json(exchange, code, status);
  }

  private static void json(HttpExchange exchange, int code, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        String[] kv = pair.split("=", 2);
        query.put(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "");
      }
    }
    return query;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
