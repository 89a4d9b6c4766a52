package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The executor's entry to task containment: checks the node ({@link #preflight}), resolves the user
 * a task runs as ({@link #taskUser}), makes each container's {@link Fence} ({@link #create}) and
 * cleans up after an agent restart ({@link #recover}). Holds no state of its own beyond the
 * settings and the detected cgroup layout; the cgroups themselves are the state.
 *
 * <p>How the executor uses it:
 *
 * <ol>
 *   <li>At start: {@link #create(ContainmentSettings)}, then {@link #preflight()}, which names what
 *       is missing and the setting that does without it; then {@link #recover} with the ids of the
 *       containers it knows are alive.
 *   <li>Per container: {@link #taskUser} (a clear error for an unknown user or a refused root),
 *       {@link Sandboxes#chownTo}, {@link #create}; the process is started with {@link
 *       Fence#launchPrefix()} put right before the command's own argv, inside the executor's
 *       wrapper (after its go-gate, so the wrapper itself stays the agent's, outside the limits).
 *       The prefix exits 125 when it cannot join the cgroups, and runs nothing then.
 *   <li>When the command ended: {@link Fence#memoryLimitHit()} decides {@code TASK_FAILED} with
 *       {@code REASON_CONTAINER_LIMITATION_MEMORY} and {@link Fence#memoryLimitMessage()}; then
 *       {@link Fence#killAll} (which also takes care of anything that left the process group) and
 *       {@link Fence#destroy()}; {@link Fence#describe()} feeds {@code /state} meanwhile.
 * </ol>
 */
public final class Containment {
  /** Mesos container ids are UUIDs; anything else must still be one plain cgroup name. */
  private static final Pattern CONTAINER_ID = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}");

  /** A placeholder for fences of ended containers, only ever killed and removed. */
  private static final Limits ENDED = new Limits(Limits.MIN_MEMORY_BYTES, 1, false);

  private static final String TURN_OFF = "or run without it: --mesos-isolation none";

  private final ContainmentSettings settings;
  private final Optional<CgroupLayout> layout;
  private final String layoutProblem;
  private final Libc libc;

  private Containment(
      ContainmentSettings settings, Optional<CgroupLayout> layout, String layoutProblem) {
    this.settings = settings;
    this.layout = layout;
    this.layoutProblem = layoutProblem;
    this.libc = Libc.get();
  }

  /**
   * Detects the cgroup layout under {@code --cgroup-root}. A node without cgroups still gets a
   * containment: {@link #preflight} then says what is missing.
   */
  public static Containment create(ContainmentSettings settings) {
    if (settings.isolation().isEmpty()) {
      return new Containment(settings, Optional.empty(), "");
    }
    try {
      return new Containment(settings, Optional.of(CgroupLayout.detect(settings.cgroupRoot())), "");
    } catch (IOException e) {
      return new Containment(settings, Optional.empty(), e.getMessage());
    }
  }

  /**
   * With a given layout rather than the detected one: a v2 fence on a hybrid node's {@code
   * unified/} mount, for instance.
   */
  public static Containment create(ContainmentSettings settings, CgroupLayout layout) {
    return new Containment(settings, Optional.of(layout), "");
  }

  public ContainmentSettings settings() {
    return settings;
  }

  /** The layout in use; empty with {@code --mesos-isolation none} or when none was found. */
  public Optional<CgroupLayout> layout() {
    return layout;
  }

  /**
   * Checks that every requested isolator can work: root, the cgroup controllers, BPF device
   * programs on v2, a writable cgroup parent, and setpriv for user switching. Creates the agent's
   * cgroup parent directories (and, on v2, enables the controllers for them), nothing else.
   */
  public Preflight preflight() {
    List<String> missing = new ArrayList<>();
    Set<MesosIsolation> isolation = settings.isolation();
    boolean root = libc.geteuid() == 0;
    if (settings.switchUser()) {
      if (!root) {
        missing.add(
            "switching tasks to their user needs root; or keep the agent's user:"
                + " --mesos-switch-user=false");
      }
      if (!Files.isExecutable(settings.setpriv())) {
        missing.add(
            "switching tasks to their user needs util-linux setpriv at "
                + settings.setpriv()
                + "; or keep the agent's user: --mesos-switch-user=false");
      }
    }
    if (!isolation.isEmpty()) {
      if (!root) {
        missing.add(
            "cgroup isolation needs root (the agent runs as euid "
                + libc.geteuid()
                + "); "
                + TURN_OFF);
      }
      if (layout.isEmpty()) {
        missing.add(layoutProblem + "; " + TURN_OFF);
      } else if (root) {
        checkLayout(layout.get(), isolation, missing);
      }
      if (isolation.contains(MesosIsolation.DEVICES) && !Files.isDirectory(settings.devRoot())) {
        missing.add("--dev-root " + settings.devRoot() + " is not a directory; " + TURN_OFF);
      }
    }
    return new Preflight(MesosIsolation.format(isolation), missing);
  }

  private void checkLayout(
      CgroupLayout layout, Set<MesosIsolation> isolation, List<String> missing) {
    if (layout instanceof CgroupLayout.Legacy legacy) {
      checkV1(legacy, isolation, missing);
    } else {
      checkV2(layout.root(), isolation, missing);
    }
  }

  private void checkV1(
      CgroupLayout.Legacy legacy, Set<MesosIsolation> isolation, List<String> missing) {
    for (String controller : CgroupV1Fence.controllers(isolation)) {
      if (!legacy.controllers().containsKey(controller)) {
        missing.add(
            "no cgroup v1 "
                + controller
                + " controller under "
                + legacy.root()
                + ("freezer".equals(controller)
                    ? " (needed to kill a task's processes); " + TURN_OFF
                    : "; " + turnOff(controller)));
      } else {
        parentWritable(legacy.controllers().get(controller), missing);
      }
    }
  }

  private void checkV2(Path root, Set<MesosIsolation> isolation, List<String> missing) {
    Set<String> available = v2Controllers(root);
    for (MesosIsolation i : isolation) {
      String controller = i.name().toLowerCase(Locale.ROOT);
      if (i != MesosIsolation.DEVICES && !available.contains(controller)) {
        missing.add(
            "the cgroup v2 "
                + controller
                + " controller is not available at "
                + root
                + "; "
                + turnOff(controller));
      }
    }
    if (isolation.contains(MesosIsolation.DEVICES)) {
      try {
        new Bpf(libc).probe();
      } catch (IOException | RuntimeException e) {
        missing.add(
            "cgroup v2 device isolation needs BPF device programs, and loading one failed ("
                + e.getMessage()
                + "); "
                + turnOff("devices"));
      }
    }
    parentWritable(root, missing);
    if (missing.isEmpty()) {
      try {
        enableV2Controllers(root);
      } catch (IOException e) {
        missing.add(
            "cannot enable cgroup v2 controllers for "
                + settings.parent()
                + " ("
                + e.getMessage()
                + "); "
                + TURN_OFF);
      }
    }
  }

  /**
   * Takes the agent's exclusive hold on its cgroup parent, before {@link #recover}: a second agent
   * on the same parent would otherwise remove this one's containers as ended. The directory locked
   * is the parent in the freezer hierarchy on v1 (every v1 fence uses it) or in the v2 root. Empty
   * when there are no cgroups to hold ({@code --mesos-isolation none}).
   *
   * @throws IOException naming the parent and {@code --mesos-cgroup-parent} when another agent
   *     holds it, or saying why it cannot be locked
   */
  public Optional<ParentLock> lockParent() throws IOException {
    if (layout.isEmpty() || settings.isolation().isEmpty()) {
      return Optional.empty();
    }
    Path hierarchy =
        layout.get() instanceof CgroupLayout.Legacy legacy
            ? legacy.controllers().get("freezer")
            : layout.get().root();
    if (hierarchy == null) {
      throw new IOException("no cgroup v1 freezer controller under " + layout.get().root());
    }
    Path dir = hierarchy.resolve(settings.parent());
    Files.createDirectories(dir);
    return Optional.of(ParentLock.take(libc, dir, settings.parent(), "--mesos-cgroup-parent"));
  }

  /** How to run without one isolator: the setting with the others, or none. */
  private String turnOff(String isolator) {
    Set<MesosIsolation> rest = EnumSet.noneOf(MesosIsolation.class);
    rest.addAll(settings.isolation());
    rest.remove(MesosIsolation.valueOf(isolator.toUpperCase(Locale.ROOT)));
    return "or run without it: --mesos-isolation " + MesosIsolation.format(rest);
  }

  private void parentWritable(Path hierarchy, List<String> missing) {
    Path parent = hierarchy.resolve(settings.parent());
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      missing.add(
          "cannot create the agent's cgroup "
              + parent
              + " ("
              + e.getMessage()
              + "), is --cgroup-root writable?; "
              + TURN_OFF);
    }
  }

  private static Set<String> v2Controllers(Path root) {
    try {
      return Set.of(CgroupFiles.read(root.resolve("cgroup.controllers")).strip().split("\\s+"));
    } catch (IOException e) {
      return Set.of();
    }
  }

  /**
   * On v2 a controller's files appear in a cgroup only when its parent lists it in {@code
   * cgroup.subtree_control}; enable memory and cpu from the root down to the agent's parent. These
   * directories hold no processes, as the v2 "no internal processes" rule requires for that.
   */
  private void enableV2Controllers(Path root) throws IOException {
    List<String> wanted = new ArrayList<>();
    for (MesosIsolation i : settings.isolation()) {
      if (i != MesosIsolation.DEVICES) {
        wanted.add(i.name().toLowerCase(Locale.ROOT));
      }
    }
    if (wanted.isEmpty()) {
      return;
    }
    Files.createDirectories(root.resolve(settings.parent()));
    Path dir = root;
    List<Path> levels = new ArrayList<>(List.of(dir));
    for (String segment : settings.parent().split("/")) {
      dir = dir.resolve(segment);
      levels.add(dir);
    }
    for (Path level : levels) {
      Path control = level.resolve("cgroup.subtree_control");
      Set<String> enabled = Set.of(CgroupFiles.read(control).strip().split("\\s+"));
      for (String controller : wanted) {
        if (!enabled.contains(controller)) {
          CgroupFiles.write(control, "+" + controller);
        }
      }
    }
  }

  /**
   * The user a task runs as: {@code CommandInfo.user} when set, else {@code FrameworkInfo.user};
   * empty when {@code --mesos-switch-user=false} (it runs as the agent's user).
   *
   * @throws IllegalArgumentException naming the user when it is unknown on this node, or naming
   *     {@code --mesos-allow-root-tasks} when the task would run as root and that is not allowed
   */
  public Optional<UserIdentity> taskUser(Optional<String> commandUser, String frameworkUser) {
    if (!settings.switchUser()) {
      if (libc.geteuid() == 0 && !settings.allowRootTasks()) {
        throw new IllegalArgumentException(
            "with --mesos-switch-user=false tasks run as the agent's user, root here, which"
                + " --mesos-allow-root-tasks does not allow");
      }
      return Optional.empty();
    }
    String name =
        commandUser.filter(u -> !u.isBlank()).orElse(frameworkUser == null ? "" : frameworkUser);
    if (name.isBlank()) {
      throw new IllegalArgumentException(
          "the task names no user (neither CommandInfo.user nor FrameworkInfo.user is set)");
    }
    UserIdentity user = new Users(libc).resolve(name);
    refuseRoot(user);
    return Optional.of(user);
  }

  private void refuseRoot(UserIdentity user) {
    if (user.isRoot() && !settings.allowRootTasks()) {
      throw new IllegalArgumentException(
          "task user '" + user.name() + "' is root (uid 0), which needs --mesos-allow-root-tasks");
    }
  }

  /**
   * Makes the container's cgroup(s), writes its limits and device fence.
   *
   * @param allowed the task's accelerator nodes (for MIG: the parent GPU's node and the MIG
   *     device's {@code nvidia-caps} nodes); the shared NVIDIA nodes and AMD's {@code kfd} are
   *     added when needed. Every other accelerator node under {@code --dev-root} is denied.
   * @param user from {@link #taskUser}
   * @throws IOException when a cgroup cannot be made or written; nothing is left behind then
   */
  public Fence create(
      String containerId, Limits limits, List<DeviceNode> allowed, Optional<UserIdentity> user)
      throws IOException {
    FenceSpec spec = spec(containerId, limits, allowed, user);
    if (settings.isolation().isEmpty()) {
      return new Unfenced(spec);
    }
    CgroupLayout cgroups =
        layout.orElseThrow(() -> new IOException(layoutProblem + "; " + TURN_OFF));
    if (cgroups instanceof CgroupLayout.Legacy legacy) {
      return createV1(spec, legacy);
    }
    return createV2(spec, cgroups.root());
  }

  private Fence createV1(FenceSpec spec, CgroupLayout.Legacy legacy) throws IOException {
    Map<String, Path> dirs = new LinkedHashMap<>();
    for (String controller : CgroupV1Fence.controllers(settings.isolation())) {
      Path mount = legacy.controllers().get(controller);
      if (mount == null) {
        throw new IOException("no cgroup v1 " + controller + " controller under " + legacy.root());
      }
      dirs.put(controller, mount.resolve(settings.parent()).resolve(spec.containerId()));
    }
    // on failure remove only what this call made, never a directory that was there before
    Map<String, Path> made = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, Path> dir : dirs.entrySet()) {
        makeContainerDir(dir.getValue(), spec.containerId());
        made.put(dir.getKey(), dir.getValue());
      }
      CgroupV1Fence fence = new CgroupV1Fence(spec, dirs, new Pids(libc));
      fence.configure();
      return fence;
    } catch (IOException | RuntimeException e) {
      removeAfterFailure(new CgroupV1Fence(spec, made, new Pids(libc)), e);
      throw e;
    }
  }

  private Fence createV2(FenceSpec spec, Path root) throws IOException {
    enableV2Controllers(root);
    Path dir = root.resolve(settings.parent()).resolve(spec.containerId());
    makeContainerDir(dir, spec.containerId());
    CgroupV2Fence fence = new CgroupV2Fence(spec, dir, new Pids(libc));
    try {
      fence.configure(new Bpf(libc));
      return fence;
    } catch (IOException | RuntimeException e) {
      removeAfterFailure(fence, e);
      throw e;
    }
  }

  private static void removeAfterFailure(Fence fence, Exception failure) {
    try {
      fence.destroy();
    } catch (IOException | RuntimeException cleanup) {
      failure.addSuppressed(cleanup);
    }
  }

  private static void makeContainerDir(Path dir, String containerId) throws IOException {
    Files.createDirectories(dir.getParent());
    try {
      Files.createDirectory(dir);
    } catch (FileAlreadyExistsException e) {
      throw new IOException(
          "container "
              + containerId
              + " already has a cgroup at "
              + dir
              + " (left from before a restart? recover() removes those of ended containers)",
          e);
    }
  }

  /**
   * A handle on a container whose cgroups already exist (one kept by {@link #recover}), to kill and
   * remove it later; writes nothing. Its memory limit is read back from the cgroup.
   *
   * @param denied what the fence was made to deny ({@link Fence#denied()}, from the container's
   *     checkpoint); empty for a record of an older agent, which kept no denial: then every
   *     accelerator node present is taken for denied
   */
  public Fence reattach(
      String containerId,
      Limits limits,
      Optional<List<DeviceNode>> denied,
      Optional<UserIdentity> user)
      throws IOException {
    FenceSpec spec =
        denied.isPresent()
            ? spec(containerId, user, limits, denied.get())
            : spec(containerId, limits, List.of(), user);
    if (layout.isEmpty() || settings.isolation().isEmpty()) {
      return new Unfenced(spec);
    }
    if (layout.get() instanceof CgroupLayout.Legacy legacy) {
      {
        // every controller where it has a directory, even one no longer in --mesos-isolation
        Map<String, Path> dirs = new LinkedHashMap<>();
        legacy
            .controllers()
            .forEach(
                (controller, mount) -> {
                  Path dir = mount.resolve(settings.parent()).resolve(containerId);
                  if (Files.isDirectory(dir) || "freezer".equals(controller)) {
                    dirs.put(controller, dir);
                  }
                });
        return new CgroupV1Fence(spec, dirs, new Pids(libc)).withLimitInForce();
      }
    }
    Path dir = layout.get().root().resolve(settings.parent()).resolve(containerId);
    return new CgroupV2Fence(spec, dir, new Pids(libc)).withLimitInForce();
  }

  private FenceSpec spec(
      String containerId, Limits limits, List<DeviceNode> allowed, Optional<UserIdentity> user)
      throws IOException {
    return spec(containerId, user, limits, denial(allowed));
  }

  /**
   * What a fence allowing {@code allowed} denies: every accelerator node under {@code --dev-root}
   * but those and their companions (see {@link #create}); nothing without device isolation. For
   * {@link Fence#updateDevices} when a running container's devices change.
   */
  public List<DeviceNode> denial(List<DeviceNode> allowed) throws IOException {
    if (!settings.isolation().contains(MesosIsolation.DEVICES)) {
      return List.of();
    }
    Map<String, DeviceNode> present = AcceleratorNodes.scan(settings.devRoot());
    return AcceleratorNodes.denied(present, AcceleratorNodes.withCompanions(present, allowed));
  }

  /** With the denial already known, as a checkpoint keeps it. */
  private FenceSpec spec(
      String containerId, Optional<UserIdentity> user, Limits limits, List<DeviceNode> denied) {
    if (containerId == null || !CONTAINER_ID.matcher(containerId).matches()) {
      throw new IllegalArgumentException(
          "container id '" + containerId + "' cannot name a cgroup (letters, digits, . _ - only)");
    }
    user.ifPresent(this::refuseRoot);
    return new FenceSpec(
        containerId,
        limits,
        settings.isolation(),
        denied,
        user,
        settings.setpriv(),
        settings.devRoot());
  }

  /** The container ids that have a cgroup under the agent's parent, in any hierarchy. */
  public Set<String> containers() throws IOException {
    Set<String> ids = new TreeSet<>();
    for (Path parent : parents()) {
      if (!Files.isDirectory(parent)) {
        continue;
      }
      try (DirectoryStream<Path> children = Files.newDirectoryStream(parent, Files::isDirectory)) {
        children.forEach(c -> ids.add(c.getFileName().toString()));
      }
    }
    return ids;
  }

  private List<Path> parents() {
    if (layout.isEmpty()) {
      return List.of();
    }
    if (layout.get() instanceof CgroupLayout.Legacy legacy) {
      return legacy.controllers().values().stream()
          .map(mount -> mount.resolve(settings.parent()))
          .toList();
    }
    return List.of(layout.get().root().resolve(settings.parent()));
  }

  /**
   * After an agent restart: keeps the cgroups of {@code live} containers, kills whatever remains in
   * the others and removes them, so nothing of an ended container is left behind.
   */
  public Recovery recover(Set<String> live) throws IOException {
    List<String> kept = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (String id : new LinkedHashSet<>(containers())) {
      if (live.contains(id)) {
        kept.add(id);
        continue;
      }
      try {
        reattach(id, ENDED, Optional.of(List.of()), Optional.empty()).destroy();
        removed.add(id);
      } catch (IOException | RuntimeException e) {
        failed.put(id, String.valueOf(e.getMessage()));
      }
    }
    return new Recovery(kept, removed, failed);
  }
}
