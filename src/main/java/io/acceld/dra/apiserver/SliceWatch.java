package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeApi;
import io.acceld.util.Backoff;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import io.acceld.util.JsonNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link SliceCache} equal to the API server's slices of this driver on this node, by a list
 * and then a watch ({@code fieldSelector=spec.nodeName=<node>,spec.driver=<driver>}), and tells the
 * writer after every change: that is how a slice someone deleted (the kubelet deletes all of a
 * node's slices when it starts) comes back. Never polls: a watch that ends is opened again from the
 * last resourceVersion; one the server finds too old (410 Gone) is replaced by a new list. Failures
 * wait a jittered, capped backoff, so a server that is down or refuses costs a few requests a
 * minute.
 */
final class SliceWatch implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(SliceWatch.class);
  static final String PATH = "/apis/resource.k8s.io/v1/resourceslices";

  /** A watch that ended sooner than this without an event waits a backoff before the next. */
  private static final Duration SHORT_WATCH = Duration.ofSeconds(1);

  private final KubeApi api;
  private final SliceCache cache;
  private final String fieldSelector;
  private final DraApiSettings.Timings timings;
  private final Runnable changed;
  private final SliceStatus status;
  private final DraApiMetrics metrics;
  private final CountDownLatch closed = new CountDownLatch(1);

  @GuardedBy("this")
  private KubeApi.Watch open;

  SliceWatch(
      KubeApi api,
      SliceCache cache,
      String driver,
      String nodeName,
      DraApiSettings.Timings timings,
      Runnable changed,
      SliceStatus status,
      DraApiMetrics metrics) {
    this.api = Objects.requireNonNull(api, "api");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.fieldSelector = "spec.nodeName=" + nodeName + ",spec.driver=" + driver;
    this.timings = Objects.requireNonNull(timings, "timings");
    this.changed = Objects.requireNonNull(changed, "changed");
    this.status = Objects.requireNonNull(status, "status");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public void run() {
    Backoff backoff = new Backoff(timings.backoffFirst(), timings.backoffMax());
    String resourceVersion = null;
    boolean first = true;
    while (closed.getCount() > 0) {
      long started = System.nanoTime();
      boolean sawEvent = false;
      try {
        if (resourceVersion == null) {
          resourceVersion = list();
        }
        if (!first) {
          metrics.watchRestarted();
        }
        first = false;
        try (KubeApi.Watch watch = api.watch(watchPath(resourceVersion), quiet())) {
          if (!opened(watch)) {
            return;
          }
          status.recovered(SliceStatus.Part.WATCH);
          JsonNode event;
          while ((event = watch.next()) != null) {
            sawEvent = true;
            String next = apply(event);
            if (next == null) {
              resourceVersion = null; // 410 Gone: list again
              break;
            }
            if (!next.isEmpty()) {
              resourceVersion = next;
            }
          }
        } finally {
          opened(null);
        }
        if (sawEvent || System.nanoTime() - started > SHORT_WATCH.toNanos()) {
          backoff.reset();
          continue;
        }
        pause(backoff.next()); // ended at once with nothing: never spin on such a server
      } catch (ApiException e) {
        if (closed.getCount() == 0) {
          return;
        }
        metrics.failed(e.kind());
        if (e.kind() == ApiException.Kind.GONE) {
          resourceVersion = null;
        }
        status.failed(SliceStatus.Part.WATCH, e.getMessage());
        log.warn("Watching this node's ResourceSlices failed; trying again: {}", e.getMessage());
        pause(backoff.next());
      }
    }
  }

  /** Lists the slices into the cache; the list's resourceVersion, to watch from. */
  private String list() throws ApiException {
    JsonNode list = api.get(KubeApi.withQuery(PATH, Map.of("fieldSelector", fieldSelector)));
    List<JsonNode> items = new ArrayList<>();
    list.path("items").forEach(items::add);
    cache.replaceAll(items);
    changed.run();
    return list.path("metadata").path("resourceVersion").asText("");
  }

  /**
   * How long an open watch may stay silent before it is taken for a dead connection: the longest
   * {@code timeoutSeconds} {@link #watchPath} asks for, plus a request's timeout. By then the
   * server should have ended the watch itself; one that has not is behind a connection that broke
   * without a word (a node's route gone, a load balancer's idle cut), which would otherwise hold
   * this thread and the slices' view for good.
   */
  private Duration quiet() {
    long seconds = timings.watchTimeout().toSeconds();
    return Duration.ofSeconds(seconds + seconds / 5 + 1).plus(timings.requestTimeout());
  }

  private String watchPath(String resourceVersion) {
    long seconds = timings.watchTimeout().toSeconds();
    seconds += ThreadLocalRandom.current().nextLong(seconds / 5 + 1);
    Map<String, String> query = new LinkedHashMap<>();
    query.put("watch", "true");
    query.put("fieldSelector", fieldSelector);
    query.put("resourceVersion", resourceVersion);
    query.put("allowWatchBookmarks", "true");
    query.put("timeoutSeconds", Long.toString(Math.max(1, seconds)));
    return KubeApi.withQuery(PATH, query);
  }

  /**
   * Applies one event to the cache; the resourceVersion to resume from, or null for 410 Gone.
   *
   * @throws ApiException for an ERROR event other than 410
   */
  private String apply(JsonNode event) throws ApiException {
    String type = event.path("type").asText("");
    JsonNode object = event.path("object");
    switch (type) {
      case "ADDED", "MODIFIED" -> {
        cache.put(object);
        changed.run();
      }
      case "DELETED" -> {
        cache.remove(SliceCache.name(object));
        changed.run();
      }
      case "BOOKMARK" -> {
        // only a newer resourceVersion
      }
      case "ERROR" -> {
        int code = object.path("code").asInt(0);
        if (code == 410) {
          return null;
        }
        throw KubeApi.failure("WATCH", PATH, code == 0 ? 500 : code, JsonNodes.render(object));
      }
      default ->
          throw new ApiException(
              ApiException.Kind.BAD_RESPONSE,
              0,
              "WATCH " + PATH + ": an event of unknown type " + ClientText.quote(type));
    }
    String rv = SliceCache.rv(object);
    return rv.isEmpty() ? "" : rv;
  }

  /** Records the open watch so close can end it; false when closed already. */
  private synchronized boolean opened(KubeApi.Watch watch) {
    if (watch != null && closed.getCount() == 0) {
      watch.close();
      return false;
    }
    open = watch;
    return true;
  }

  /**
   * {@code delay} jittered to 80-120 %, so that nodes that lost the server together do not come
   * back together; never more than {@code cap}.
   */
  static long jittered(Duration delay, Duration cap) {
    double factor = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
    return Math.min(cap.toMillis(), (long) (delay.toMillis() * factor));
  }

  private void pause(Duration delay) {
    long millis = jittered(delay, timings.backoffMax());
    try {
      closed.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed.countDown();
    }
  }

  void close() {
    closed.countDown();
    synchronized (this) {
      if (open != null) {
        open.close();
      }
    }
  }
}
