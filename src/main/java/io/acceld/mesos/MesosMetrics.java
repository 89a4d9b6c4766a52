package io.acceld.mesos;

import io.acceld.mesos.executor.Containers;
import io.acceld.mesos.scheduler.MesosMaster;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.TaskState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The Mesos bridge as series, read from the master and the task book at scrape time (the binder
 * holds no data of its own). Here rather than in {@code metrics/} because publishers' packages do
 * not import each other: the agent binds it to its registry when the bridge runs, so an agent
 * without {@code --mesos-address} exports none of these.
 *
 * <ul>
 *   <li>{@code acceld_mesos_frameworks{state}}: {@code subscribed} or {@code disconnected} (within
 *       their failover timeout);
 *   <li>{@code acceld_mesos_tasks{state}}: the book's tasks by latest state, every state present;
 *   <li>{@code acceld_mesos_offers_outstanding}, {@code
 *       acceld_mesos_status_updates_unacknowledged};
 *   <li>{@code acceld_mesos_status_update_retries_total}, {@code
 *       acceld_mesos_offers_rescinded_total};
 *   <li>{@code acceld_mesos_tasks_contained{isolation}}, {@code
 *       acceld_mesos_tasks_limited_total{limit}}: containment.
 * </ul>
 */
public final class MesosMetrics implements MeterBinder {
  private final MesosMaster master;
  private final TaskBook book;
  private final Containers containers;

  public MesosMetrics(MesosMaster master, TaskBook book, Containers containers) {
    this.master = Objects.requireNonNull(master, "master");
    this.book = Objects.requireNonNull(book, "book");
    this.containers = Objects.requireNonNull(containers, "containers");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "acceld.mesos.frameworks", "subscribed", m -> m.stats().subscribed());
    gauge(registry, "acceld.mesos.frameworks", "disconnected", m -> m.stats().disconnected());
    for (TaskState state : TaskState.values()) {
      Gauge.builder("acceld.mesos.tasks", book, b -> tasksByState(b).getOrDefault(state, 0))
          .description("Mesos tasks on this node by their latest state (ended ones until acked)")
          .tag("state", state.name())
          .register(registry);
    }
    Gauge.builder("acceld.mesos.offers.outstanding", master, m -> m.stats().outstandingOffers())
        .description("Offers sent to frameworks and not yet used, declined or rescinded")
        .register(registry);
    Gauge.builder("acceld.mesos.status.updates.unacknowledged", book, MesosMetrics::unacknowledged)
        .description("Task status updates sent and not yet acknowledged by their scheduler")
        .register(registry);
    FunctionCounter.builder(
            "acceld.mesos.status.update.retries", book, TaskBook::statusUpdateRetries)
        .description("Status updates resent because their scheduler did not acknowledge them")
        .register(registry);
    Gauge.builder("acceld.mesos.tasks.contained", containers, Containers::runningTasks)
        .description("Running Mesos tasks by how they are contained (--mesos-isolation)")
        .tag("isolation", containers.isolation())
        .register(registry);
    FunctionCounter.builder(
            "acceld.mesos.tasks.limited", containers, Containers::tasksEndedByMemoryLimit)
        .description("Mesos tasks ended by a limit of their container")
        .tag("limit", "memory")
        .register(registry);
    FunctionCounter.builder(
            "acceld.mesos.offers.rescinded", master, m -> m.stats().offersRescinded())
        .description("Offers rescinded (their devices were taken, or the framework changed)")
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry, String name, String state, ToDoubleFunction<MesosMaster> value) {
    Gauge.builder(name, master, value)
        .description("Mesos frameworks this node's master knows, by connection state")
        .tag("state", state)
        .register(registry);
  }

  private static Map<TaskState, Integer> tasksByState(TaskBook book) {
    Map<TaskState, Integer> counts = new EnumMap<>(TaskState.class);
    for (TaskView t : book.tasks()) {
      counts.merge(t.state(), 1, Integer::sum);
    }
    return counts;
  }

  private static double unacknowledged(TaskBook book) {
    int sum = 0;
    for (TaskView t : book.tasks()) {
      sum += t.unacknowledged();
    }
    return sum;
  }
}
