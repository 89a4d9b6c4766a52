package io.acceld.kubelet;

/**
 * What the kubelet-facing servers report as they work, for metrics and readiness. Methods are
 * called on gRPC and registration threads and must be quick.
 */
public interface PluginEvents {
  PluginEvents NONE = new PluginEvents() {};

  /** An Allocate handed out {@code devices} devices of {@code resource}. */
  default void allocated(String resource, int devices) {}

  /** The number of open ListAndWatch streams of {@code resource} changed. */
  default void streams(String resource, int open) {}

  /**
   * Registration with the kubelet succeeded ({@code true}) or the server went away ({@code false}).
   */
  default void registered(String resource, boolean registered) {}

  /**
   * A Register of {@code resource} failed, or could not be sent (no kubelet socket); it is tried
   * again.
   */
  default void registerFailed(String resource) {}
}
