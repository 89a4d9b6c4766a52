package io.acceld.testing.mesos;

import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.DurationInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.proto.mesos.v1.scheduler.Call;
import java.util.List;
import java.util.Optional;

/** The scheduler calls a framework makes, built as a v1 client library would build them. */
public final class MesosCalls {
  private MesosCalls() {}

  public static FrameworkInfo framework(String name, boolean gpuResources) {
    FrameworkInfo.Builder info = FrameworkInfo.newBuilder().setUser("root").setName(name);
    if (gpuResources) {
      info.addCapabilities(
          FrameworkInfo.Capability.newBuilder()
              .setType(FrameworkInfo.Capability.Type.GPU_RESOURCES));
    }
    return info.build();
  }

  /** SUBSCRIBE; with {@code id} a re-subscription of that framework. */
  public static Call subscribe(FrameworkInfo info, Optional<FrameworkID> id) {
    Call.Builder call = Call.newBuilder().setType(Call.Type.SUBSCRIBE);
    FrameworkInfo.Builder framework = info.toBuilder();
    id.ifPresent(
        i -> {
          call.setFrameworkId(i);
          framework.setId(i);
        });
    return call.setSubscribe(Call.Subscribe.newBuilder().setFrameworkInfo(framework)).build();
  }

  public static Resource scalar(String name, double value) {
    return Resource.newBuilder()
        .setName(name)
        .setType(Value.Type.SCALAR)
        .setScalar(Value.Scalar.newBuilder().setValue(value))
        .build();
  }

  /** The value of the scalar resource {@code name} in {@code offer}, 0 if it has none. */
  public static double scalarOf(Offer offer, String name) {
    return offer.getResourcesList().stream()
        .filter(r -> r.getName().equals(name))
        .mapToDouble(r -> r.getScalar().getValue())
        .sum();
  }

  /** A command task (no executor) running {@code shellCommand} with {@code resources}. */
  public static TaskInfo commandTask(
      String id, AgentID agent, String shellCommand, List<Resource> resources) {
    return TaskInfo.newBuilder()
        .setName(id)
        .setTaskId(TaskID.newBuilder().setValue(id))
        .setAgentId(agent)
        .addAllResources(resources)
        .setCommand(CommandInfo.newBuilder().setShell(true).setValue(shellCommand))
        .setKillPolicy(
            KillPolicy.newBuilder()
                .setGracePeriod(DurationInfo.newBuilder().setNanoseconds(500_000_000L)))
        .build();
  }

  public static Call accept(FrameworkID framework, Offer offer, List<TaskInfo> tasks) {
    return Call.newBuilder()
        .setFrameworkId(framework)
        .setType(Call.Type.ACCEPT)
        .setAccept(
            Call.Accept.newBuilder()
                .addOfferIds(offer.getId())
                .addOperations(
                    Offer.Operation.newBuilder()
                        .setType(Offer.Operation.Type.LAUNCH)
                        .setLaunch(Offer.Operation.Launch.newBuilder().addAllTaskInfos(tasks))))
        .build();
  }

  public static Call acknowledge(FrameworkID framework, TaskStatus status) {
    return Call.newBuilder()
        .setFrameworkId(framework)
        .setType(Call.Type.ACKNOWLEDGE)
        .setAcknowledge(
            Call.Acknowledge.newBuilder()
                .setAgentId(status.getAgentId())
                .setTaskId(status.getTaskId())
                .setUuid(status.getUuid()))
        .build();
  }

  public static Call kill(FrameworkID framework, String task) {
    return Call.newBuilder()
        .setFrameworkId(framework)
        .setType(Call.Type.KILL)
        .setKill(Call.Kill.newBuilder().setTaskId(TaskID.newBuilder().setValue(task)))
        .build();
  }

  public static Call reconcileAll(FrameworkID framework) {
    return Call.newBuilder()
        .setFrameworkId(framework)
        .setType(Call.Type.RECONCILE)
        .setReconcile(Call.Reconcile.getDefaultInstance())
        .build();
  }

  public static Call updateFramework(FrameworkInfo info) {
    return Call.newBuilder()
        .setFrameworkId(info.getId())
        .setType(Call.Type.UPDATE_FRAMEWORK)
        .setUpdateFramework(Call.UpdateFramework.newBuilder().setFrameworkInfo(info))
        .build();
  }
}
