package io.acceld.labels;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.util.NamedThreads;
import io.acceld.util.RateLimitedLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's feature file ({@code --node-labels-file}) in step with the inventory: it follows
 * the {@link InventoryStore}, so a hardware change (a MIG re-partition, an unplugged GPU) is in the
 * file as soon as the rescan that sees it publishes. The work runs on its own thread, as store
 * listeners must be quick; a burst of changes is one rewrite of the latest inventory, and only if
 * the labels changed.
 *
 * <p>Labels NFD would refuse are left out, each with one WARN naming it (again only after it was
 * valid in between). A write that fails is logged and retried; it never stops the agent.
 *
 * <p>On stop the file is left in place, unlike GPU Feature Discovery, which deletes its file on
 * exit. The labels describe the hardware, which an agent restart does not change: deleting them
 * would make NFD drop every label for the seconds a rolling update of the DaemonSet takes, and the
 * scheduler would meanwhile refuse new pods that select on them (and this DaemonSet's own affinity
 * may be one of them). The next start rewrites the file if the hardware changed. Removing the agent
 * for good means removing the file too (the README says so).
 */
public final class NodeLabelsPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeLabelsPublisher.class);

  /** How long after a failed write it is tried again, if no change comes first. */
  static final Duration RETRY = Duration.ofSeconds(10);

  /** How often the NodeFeature object is read again, in case someone changed or deleted it. */
  static final Duration RECHECK = Duration.ofMinutes(10);

  private final Optional<FeatureFileSync> file;
  private final Optional<NodeFeatureSink> api;
  private final InventoryStore store;
  private final Function<Inventory, LabelSet> labels;
  private final InventoryStore.Listener listener = this::changed;
  private final AtomicReference<Inventory> latest = new AtomicReference<>();
  private final AtomicBoolean queued = new AtomicBoolean();
  private final AtomicLong turns = new AtomicLong();
  private final ScheduledThreadPoolExecutor thread =
      new ScheduledThreadPoolExecutor(1, new NamedThreads("acceld-node-labels"));
  private final RateLimitedLog failures = new RateLimitedLog(log, Duration.ofMinutes(10));

  // The labels thread only.
  private final Set<String> warnedRejected = new HashSet<>();
  private List<String> lastDropped = List.of();
  private boolean failing;
  private boolean apiFailing;
  private final AtomicLong apiWrites = new AtomicLong();

  private NodeLabelsPublisher(
      Optional<Path> file,
      Optional<NodeFeatureSink> api,
      InventoryStore store,
      Function<Inventory, LabelSet> labels) {
    this.file = file.map(FeatureFileSync::new);
    this.api = api;
    this.store = store;
    this.labels = labels;
    // A retry waiting when the agent stops is dropped, not run after the stop.
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * Starts following {@code store}, writing its current inventory's labels at once. Call it after
   * the first discovery has published: before, the store holds no inventory and there is nothing to
   * write yet (an empty file would strip the node's labels during every restart).
   *
   * @param file the feature file; empty: off
   * @param labels the labels of an inventory ({@link NodeLabels#of} with the agent's settings)
   * @return empty when off: no file configured, or its directory does not exist (NFD is not
   *     installed), said in one INFO line
   */
  public static Optional<NodeLabelsPublisher> start(
      Optional<Path> file, InventoryStore store, Function<Inventory, LabelSet> labels) {
    return start(file, Optional.empty(), store, labels);
  }

  /**
   * As {@link #start(Optional, InventoryStore, Function)}, and with {@code api} present the same
   * labels also go to the API server as a NodeFeature object ({@code --node-labels-api}); then it
   * runs even without a feature file.
   */
  public static Optional<NodeLabelsPublisher> start(
      Optional<Path> file,
      Optional<NodeFeatureSink> api,
      InventoryStore store,
      Function<Inventory, LabelSet> labels) {
    Optional<Path> usable = file;
    String off;
    if (file.isEmpty()) {
      off = "(--node-labels-file is empty)";
    } else {
      Path directory = file.get().toAbsolutePath().getParent();
      boolean exists = directory != null && Files.isDirectory(directory);
      usable = exists ? file : Optional.empty();
      off =
          exists
              ? ""
              : ": "
                  + directory
                  + " does not exist (is Node Feature Discovery installed? set --node-labels-file"
                  + " to its features.d directory, or restart once it exists)";
    }
    if (usable.isEmpty()) {
      if (api.isEmpty()) {
        log.info("Node labels are off{}{}", off.startsWith(":") ? "" : " ", off);
        return Optional.empty();
      }
      log.info("Node labels: no feature file{}{}", off.startsWith(":") ? "" : " ", off);
    }
    // Not api.ifPresent(lambda): linking a lambda that takes a NodeFeatureSink loads that class
    // and, through it, Jackson's tree model (~330 KB of every node's class-data archive) on the
    // nodes that never write a NodeFeature.
    if (api.isPresent()) {
      log.info("Node labels: writing them to {} as well", api.get().describe());
    }
    NodeLabelsPublisher publisher = new NodeLabelsPublisher(usable, api, store, labels);
    store.subscribe(publisher.listener);
    publisher.changed(store.current(), null);
    if (api.isPresent()) {
      // Writes follow changes; this catches an object someone changed or deleted meanwhile.
      publisher.thread.scheduleWithFixedDelay(
          () -> publisher.queue(Duration.ZERO),
          RECHECK.toMillis(),
          RECHECK.toMillis(),
          TimeUnit.MILLISECONDS);
    }
    return Optional.of(publisher);
  }

  /** The feature file this publisher writes, if it writes one. */
  public Optional<Path> file() {
    return file.map(FeatureFileSync::file);
  }

  /** How many times the file has been written since start. */
  public long writes() {
    return file.map(FeatureFileSync::writes).orElse(0L);
  }

  /** How many times the NodeFeature object has been created or updated since start. */
  public long apiWrites() {
    return apiWrites.get();
  }

  /**
   * How many inventories the publisher has brought the file in line with since start (a burst of
   * changes can be one): a turn that found the file right writes nothing.
   */
  public long turns() {
    return turns.get();
  }

  private void changed(Inventory current, InventoryDiff diff) {
    latest.set(current);
    queue(Duration.ZERO);
  }

  private void queue(Duration delay) {
    if (!queued.compareAndSet(false, true)) {
      return; // a turn is queued and will read the latest inventory
    }
    try {
      thread.schedule(this::turn, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      queued.set(false); // stopping
    }
  }

  private void turn() {
    queued.set(false);
    try {
      sync(latest.get());
    } finally {
      turns.incrementAndGet();
    }
  }

  private void sync(Inventory inventory) {
    if (inventory == Inventory.EMPTY) {
      // Nothing published yet (the first scan failed): no labels to write, and writing none would
      // strip the node's labels until the next successful scan.
      return;
    }
    LabelSet set;
    try {
      set = labels.apply(inventory);
    } catch (RuntimeException e) {
      failures.warn("Node labels: cannot compute them ({}); retrying in {}s", e, RETRY.toSeconds());
      queue(RETRY);
      return;
    }
    reportRejected(set.rejected());
    file.ifPresent(f -> syncFile(f, set));
    if (api.isPresent()) { // not ifPresent: see start()
      syncApi(api.get(), set);
    }
  }

  private void syncFile(FeatureFileSync file, LabelSet set) {
    try {
      FeatureFile.Rendered rendered = FeatureFile.render(set);
      reportDropped(rendered.dropped(), set.labels().size());
      if (file.sync(rendered.content())) {
        log.info(
            "Node labels: wrote {} label(s) to {}",
            set.labels().size() - rendered.dropped().size(),
            file.file());
      }
      if (failing) {
        failing = false;
        log.info("Node labels: {} is written again", file.file());
      }
    } catch (IOException | RuntimeException e) {
      failing = true;
      failures.warn(
          "Node labels: cannot write {} ({}); retrying in {}s",
          file.file(),
          e.toString(),
          RETRY.toSeconds());
      queue(RETRY);
    }
  }

  private void syncApi(NodeFeatureSink api, LabelSet set) {
    try {
      if (api.sync(set.labels())) {
        apiWrites.incrementAndGet();
        log.info("Node labels: wrote {} label(s) to {}", set.labels().size(), api.describe());
      }
      if (apiFailing) {
        apiFailing = false;
        log.info("Node labels: {} is written again", api.describe());
      }
    } catch (Exception e) { // ApiException, named here only: loading it is the API's business
      apiFailing = true;
      failures.warn(
          "Node labels: cannot write {} ({}); retrying in {}s",
          api.describe(),
          e.getMessage(),
          RETRY.toSeconds());
      queue(RETRY);
    }
  }

  private void reportRejected(List<LabelSet.Rejected> rejected) {
    Set<String> now = new HashSet<>();
    for (LabelSet.Rejected r : rejected) {
      now.add(r.key());
      if (warnedRejected.add(r.key())) {
        log.warn(
            "Node label {}={} left out: Node Feature Discovery would refuse it ({})",
            r.key(),
            r.value(),
            r.reason());
      }
    }
    warnedRejected.retainAll(now);
  }

  private void reportDropped(List<String> dropped, int total) {
    if (!dropped.isEmpty() && !dropped.equals(lastDropped)) {
      log.warn(
          "Node labels: {} label(s) would take the feature file over NFD's {}-byte limit, which"
              + " makes NFD ignore the whole file; left out the last {} of {}, from {} on",
          total,
          FeatureFile.MAX_BYTES,
          dropped.size(),
          total,
          dropped.get(0));
    }
    lastDropped = dropped;
  }

  /** Stops following the store. The file stays (see the class comment). */
  @Override
  public void close() {
    store.unsubscribe(listener);
    thread.shutdown();
    try {
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
