package io.acceld.mesos;

import io.acceld.mesos.executor.Containers;
import io.acceld.mesos.http.ExecutorEndpoint;
import io.acceld.mesos.http.ExecutorTokens;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.http.SchedulerEndpoint;
import io.acceld.proto.mesos.v1.executor.Call;
import java.util.Optional;

/**
 * The endpoints the HTTP server sees while the bridge recovers: 503 with Mesos's texts until the
 * real ones are handed over, then theirs. Lets the server bind (and learn its port) before the
 * parts that need the port exist.
 */
final class Recovering implements SchedulerEndpoint, ExecutorEndpoint, ExecutorTokens {
  private volatile ExecutorTokens tokens = ExecutorTokens.NONE;
  private volatile SchedulerEndpoint scheduler;
  private volatile ExecutorEndpoint executor;
  private volatile MesosStateSource state;

  /** How {@code GET /state} is rendered once the master exists. */
  @FunctionalInterface
  interface MesosStateSource {
    String json();
  }

  void serve(io.acceld.mesos.scheduler.MesosMaster master, Containers containers) {
    this.tokens = containers;
    this.state = () -> ContainmentState.render(master.stateJson(), containers.fences());
    this.executor = containers;
    this.scheduler = master;
  }

  @Override
  public Reply subscribe(io.acceld.proto.mesos.v1.scheduler.Call call, Optional<String> principal) {
    SchedulerEndpoint s = scheduler;
    return s == null ? notRecovered() : s.subscribe(call, principal);
  }

  @Override
  public Reply handle(
      io.acceld.proto.mesos.v1.scheduler.Call call,
      Optional<String> streamId,
      Optional<String> principal) {
    SchedulerEndpoint s = scheduler;
    return s == null ? notRecovered() : s.handle(call, streamId, principal);
  }

  private static Reply notRecovered() {
    return Reply.failure(503, "Master has not finished recovery");
  }

  @Override
  public boolean recovering() {
    ExecutorEndpoint e = executor;
    return e == null || e.recovering();
  }

  @Override
  public Reply subscribe(Call call) {
    ExecutorEndpoint e = executor;
    return e == null ? Reply.failure(503, "Agent has not finished recovery") : e.subscribe(call);
  }

  @Override
  public Reply handle(Call call) {
    ExecutorEndpoint e = executor;
    return e == null ? Reply.failure(503, "Agent has not finished recovery") : e.handle(call);
  }

  @Override
  public Optional<Identity> executorOf(String token) {
    return tokens.executorOf(token);
  }

  String stateJson() {
    MesosStateSource s = state;
    return s == null ? "{\"recovering\":true}" : s.json();
  }
}
