package io.acceld.mesos.containment;

import java.time.Duration;
import java.util.List;

/**
 * {@code --mesos-isolation none}: no cgroup, at most a user switch. The executor keeps killing the
 * task's process group itself, which misses processes that left it (setsid, double fork).
 */
public final class Unfenced implements Fence {
  private final FenceSpec spec;

  /** Nothing enforces them; kept so that {@code /state} shows the container's resources. */
  private volatile Limits limits;

  private volatile List<DeviceNode> denied;

  Unfenced(FenceSpec spec) {
    this.spec = spec;
    this.limits = spec.limits();
    this.denied = spec.denied();
  }

  @Override
  public String containerId() {
    return spec.containerId();
  }

  @Override
  public Limits limits() {
    return limits;
  }

  @Override
  public void update(Limits requested) {
    limits = requested;
  }

  @Override
  public List<DeviceNode> denied() {
    return denied;
  }

  @Override
  public void updateDevices(List<DeviceNode> denied) {
    this.denied = List.copyOf(denied);
  }

  @Override
  public List<String> launchPrefix() {
    return LaunchPrefix.of(List.of(), spec.user(), spec.setpriv());
  }

  @Override
  public boolean killAll(Duration timeout) {
    return false;
  }

  @Override
  public boolean memoryLimitHit() {
    return false;
  }

  @Override
  public void destroy() {}

  @Override
  public FenceDescription describe() {
    return spec.describe("none", List.of(), limits, denied);
  }
}
