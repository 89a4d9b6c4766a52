package io.acceld.ledger;

import java.util.Objects;

/**
 * Who holds a lease. A closed set, so every switch over holders is checked by the compiler when a
 * kind is added (it needs a record here, a {@link HolderKind} and a {@link Publisher}).
 */
public sealed interface Holder {
  HolderKind kind();

  /** Which side of the agent handed the device out; devices never cross sides while leased. */
  default Publisher publisher() {
    return kind().publisher();
  }

  /** The holder's own name: {@code ns/pod/container}, {@code framework/task}, the allocation. */
  String name();

  /** For people, with the kind: {@code pod ns/p/c}, {@code Mesos task f/t}. */
  String describe();

  /**
   * A container of a pod, as the kubelet's pod-resources API reports it.
   *
   * @param namespace the pod's namespace
   * @param pod the pod's name
   * @param container the container's name
   */
  record KubeletPod(String namespace, String pod, String container) implements Holder {
    public KubeletPod {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(pod, "pod");
      Objects.requireNonNull(container, "container");
    }

    @Override
    public HolderKind kind() {
      return HolderKind.KUBELET_POD;
    }

    @Override
    public String name() {
      return namespace + "/" + pod + "/" + container;
    }

    @Override
    public String describe() {
      return "pod " + name();
    }
  }

  /**
   * An Allocate the agent answered that no pod has been seen with yet. Allocate carries no pod
   * identity, so each container request of each call is its own holder.
   *
   * @param allocation unique per container request of an Allocate call
   */
  record KubeletPending(String allocation) implements Holder {
    public KubeletPending {
      Objects.requireNonNull(allocation, "allocation");
    }

    @Override
    public HolderKind kind() {
      return HolderKind.KUBELET_PENDING;
    }

    @Override
    public String name() {
      return allocation;
    }

    @Override
    public String describe() {
      return "pending kubelet allocation " + allocation;
    }
  }

  /**
   * A Mesos task on this node.
   *
   * @param frameworkId the framework's ID
   * @param taskId the task's ID, unique within its framework
   */
  record MesosTask(String frameworkId, String taskId) implements Holder {
    public MesosTask {
      Objects.requireNonNull(frameworkId, "frameworkId");
      Objects.requireNonNull(taskId, "taskId");
    }

    @Override
    public HolderKind kind() {
      return HolderKind.MESOS_TASK;
    }

    @Override
    public String name() {
      return frameworkId + "/" + taskId;
    }

    @Override
    public String describe() {
      return "Mesos task " + name();
    }
  }

  /**
   * A Kubernetes ResourceClaim prepared for a pod through Dynamic Resource Allocation. The UID
   * tells a claim from a later one of the same name (deleted and created again).
   *
   * @param namespace the claim's namespace
   * @param claimName the claim's name
   * @param uid the claim's UID, as the kubelet names it in NodePrepareResources
   */
  record DraClaim(String namespace, String claimName, String uid) implements Holder {
    public DraClaim {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(claimName, "claimName");
      Objects.requireNonNull(uid, "uid");
    }

    @Override
    public HolderKind kind() {
      return HolderKind.DRA_CLAIM;
    }

    @Override
    public String name() {
      return namespace + "/" + claimName;
    }

    @Override
    public String describe() {
      return "DRA claim " + name() + " (uid " + uid + ")";
    }
  }
}
