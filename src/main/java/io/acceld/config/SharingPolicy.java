package io.acceld.config;

/**
 * How one resource's devices are shared (time-slicing): each device is advertised {@code replicas}
 * times as {@code <id>::<k>}, optionally under {@code <resource>.shared} so that pods ask for
 * shared devices explicitly.
 *
 * @param replicas how many times each device is advertised; 1 means no sharing
 * @param renameShared advertise under {@code <resource>.shared} instead of the resource name
 */
public record SharingPolicy(int replicas, boolean renameShared) {
  public static final SharingPolicy NONE = new SharingPolicy(1, false);
  public static final int MAX_REPLICAS = 1024;

  public SharingPolicy {
    if (replicas < 1 || replicas > MAX_REPLICAS) {
      throw new IllegalArgumentException("replicas must be from 1 to " + MAX_REPLICAS);
    }
  }

  public boolean isShared() {
    return replicas > 1;
  }

  /** The name {@code resource} is advertised under: itself, or {@code <resource>.shared}. */
  public String advertisedName(String resource) {
    return renameShared ? resource + ".shared" : resource;
  }
}
