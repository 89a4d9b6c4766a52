package io.acceld.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every setting the agent has. Adding one here adds its flag, env var and YAML key. Constants only:
 * the table is immutable.
 */
public final class Settings {
  private Settings() {}

  public static final Setting<Path> SYSFS_ROOT =
      new Setting<>("sysfs-root", "DIR", "Where sysfs is mounted.", Parsers.path(), "/sys");

  public static final Setting<Path> DEV_ROOT =
      new Setting<>(
          "dev-root",
          "DIR",
          "Where the agent reads device nodes (inside a container, the host's /dev mount).",
          Parsers.path(),
          "/dev");

  public static final Setting<Path> PROC_ROOT =
      new Setting<>("proc-root", "DIR", "Where procfs is mounted.", Parsers.path(), "/proc");

  public static final Setting<String> NVML_LIBRARY =
      new Setting<>(
          "nvml-library",
          "PATH",
          "NVML library to load: the soname, an absolute path, or 'none' to run without NVML.",
          Parsers.string(),
          "libnvidia-ml.so.1");

  public static final Setting<List<DeviceExpectation>> EXPECT_DEVICES =
      new Setting<>(
          "expect-devices",
          "EXPECTATIONS",
          "Devices this node must have, such as nvidia.com/gpu=8 or nvidia.com/gpu>=1,"
              + " comma-separated; /readyz answers 503 while they are not found.",
          DeviceExpectation.listParser(),
          "");

  public static final Setting<Boolean> FAIL_ON_INIT_ERROR =
      new Setting<>(
          "fail-on-init-error",
          "BOOL",
          "Exit at start when NVML fails to load or --expect-devices is not met, instead of"
              + " serving what was found and staying unready.",
          Parsers.bool(),
          "false");

  public static final Setting<String> LOG_LEVEL =
      new Setting<>(
          "log-level",
          "LEVEL",
          "Log level: error, warn, info, debug or trace.",
          Parsers.choice("error", "warn", "info", "debug", "trace"),
          "info");

  public static final Setting<String> LOG_FORMAT =
      new Setting<>(
          "log-format",
          "FORMAT",
          "Log format: text, or json (one object per line with timestamp, level, logger, thread,"
              + " message and the event's fields such as device, resource and reason).",
          Parsers.choice("text", "json"),
          "text");

  public static final Setting<Duration> RESCAN_INTERVAL =
      new Setting<>(
          "rescan-interval",
          "DURATION",
          "How often 'run' rediscovers devices in full (0 disables). A backstop: PCI arrivals and"
              + " departures, device nodes and NVML's MIG events already start one at once.",
          Parsers.duration(),
          "60s");

  public static final Setting<Path> DEVICE_PLUGIN_DIR =
      new Setting<>(
          "device-plugin-dir",
          "DIR",
          "The kubelet's device-plugin directory: our sockets and kubelet.sock. Never created:"
              + " 'run' waits for the kubelet to make it, alive but not ready.",
          Parsers.path(),
          "/var/lib/kubelet/device-plugins");

  public static final Setting<RegistrationMode> KUBELET_REGISTRATION =
      new Setting<>(
          "kubelet-registration",
          "MODE",
          "How to register with the kubelet: classic (Register on kubelet.sock), plugin-watcher"
              + " (a socket in the plugins registry) or none (serve only).",
          RegistrationMode.parser(),
          "classic");

  public static final Setting<MigStrategy> MIG_STRATEGY =
      new Setting<>(
          "mig-strategy",
          "STRATEGY",
          "How MIG-enabled GPUs are advertised, as NVIDIA's device plugin does: none (every GPU"
              + " whole), single (their MIG devices as nvidia.com/gpu; every GPU MIG-enabled with"
              + " one profile) or mixed (each profile its own nvidia.com/mig-<profile>).",
          MigStrategy.parser(),
          "none");

  public static final Setting<Path> PLUGINS_REGISTRY_DIR =
      new Setting<>(
          "plugins-registry-dir",
          "DIR",
          "The kubelet's plugin-watcher directory, for --kubelet-registration plugin-watcher.",
          Parsers.path(),
          "/var/lib/kubelet/plugins_registry");

  public static final Setting<Path> HOST_DEV_PREFIX =
      new Setting<>(
          "host-dev-prefix",
          "DIR",
          "Where device nodes are on the host, for the device specs and CDI files handed to the"
              + " container runtime (independent of --dev-root, where the agent reads them).",
          Parsers.path(),
          "/dev");

  public static final Setting<Boolean> PASS_DEVICE_SPECS =
      new Setting<>(
          "pass-device-specs",
          "BOOL",
          "Return device specs (the device nodes) in Allocate responses.",
          Parsers.bool(),
          "true");

  public static final Setting<Boolean> CDI =
      new Setting<>(
          "cdi",
          "BOOL",
          "Write CDI spec files and return CDI device names in Allocate responses.",
          Parsers.bool(),
          "false");

  public static final Setting<Path> CDI_DIR =
      new Setting<>(
          "cdi-dir", "DIR", "Where CDI spec files are written.", Parsers.path(), "/var/run/cdi");

  public static final Setting<Boolean> PRE_START_REQUIRED =
      new Setting<>(
          "pre-start-required",
          "BOOL",
          "Ask the kubelet to call PreStartContainer, which re-checks the devices before each"
              + " start.",
          Parsers.bool(),
          "false");

  public static final Setting<HostPort> METRICS_ADDRESS =
      new Setting<>(
          "metrics-address",
          "HOST:PORT",
          "Where /metrics, /healthz and /readyz are served.",
          Parsers.hostPort(),
          "0.0.0.0:9445");

  public static final Setting<Duration> TELEMETRY_INTERVAL =
      new Setting<>(
          "telemetry-interval",
          "DURATION",
          "How often GPU telemetry is sampled; scrapes serve the last sample.",
          Parsers.duration(),
          "10s");

  public static final Setting<String> NODE_NAME =
      new Setting<>(
          "node-name",
          "NAME",
          "This node's name, for the Hostname metric label (default: $NODE_NAME, else the host"
              + " name).",
          Parsers.string(),
          "");

  public static final Setting<Path> POD_RESOURCES_SOCKET =
      new Setting<>(
          "pod-resources-socket",
          "PATH",
          "The kubelet's pod-resources socket, polled to learn which pod uses which device.",
          Parsers.path(),
          "/var/lib/kubelet/pod-resources/kubelet.sock");

  public static final Setting<Duration> KUBELET_PENDING_LEASE_TTL =
      new Setting<>(
          "kubelet-pending-lease-ttl",
          "DURATION",
          "How long a device handed out by Allocate stays leased without a pod using it.",
          Parsers.duration(),
          "2m");

  public static final Setting<Path> STATE_DIR =
      new Setting<>(
          "state-dir",
          "DIR",
          "Where the agent keeps its state (the device ledger's checkpoint); created owner-only.",
          Parsers.path(),
          "/var/lib/acceld");

  public static final Setting<List<Integer>> XID_IGNORE_ADD =
      new Setting<>(
          "xid-ignore-add",
          "XIDS",
          "XIDs to ignore besides the defaults (13,31,43,45,68,109), comma-separated.",
          Parsers.integerList(),
          "");

  public static final Setting<List<Integer>> XID_IGNORE_REMOVE =
      new Setting<>(
          "xid-ignore-remove",
          "XIDS",
          "Default-ignored XIDs that should mark a GPU unhealthy after all, comma-separated.",
          Parsers.integerList(),
          "");

  public static final Setting<Optional<Duration>> HEALTH_QUARANTINE =
      new Setting<>(
          "health-quarantine",
          "DURATION",
          "How long an XID or ECC mark keeps a GPU unhealthy: a duration, or forever.",
          Parsers.durationOrForever(),
          "forever");

  public static final Setting<Duration> HEALTH_PROBE_INTERVAL =
      new Setting<>(
          "health-probe-interval",
          "DURATION",
          "How often each GPU is probed (lost GPU, pending retired pages).",
          Parsers.duration(),
          "5s");

  // 1 s rather than 500 ms: where file-system events work (devtmpfs) they come at once anyway, and
  // the fallback poll's wake-ups were 2 to 5 of an idle agent's ~25 CPU ticks per 30 s.
  public static final Setting<Duration> PRESENCE_POLL_INTERVAL =
      new Setting<>(
          "presence-poll-interval",
          "DURATION",
          "How often PCI devices and device nodes are checked when file-system events do not come.",
          Parsers.duration(),
          "1s");

  public static final Setting<DcgmModelLabel> DCGM_MODEL_LABEL =
      new Setting<>(
          "dcgm-model-label",
          "NAME",
          "Label carrying the GPU model on DCGM_FI_* series: model_name (passes promtool's lint) or"
              + " modelName (dcgm-exporter's exact spelling).",
          DcgmModelLabel.parser(),
          "model_name");

  public static final Setting<Optional<HostPort>> MESOS_ADDRESS =
      new Setting<>(
          "mesos-address",
          "HOST:PORT",
          "Where the Mesos bridge (v1 scheduler and executor HTTP APIs) listens, such as"
              + " 127.0.0.1:5050; empty keeps the bridge off.",
          Parsers.optional(Parsers.hostPort()),
          "");

  public static final Setting<String> MESOS_AUTH =
      new Setting<>(
          "mesos-auth",
          "KIND:FILE",
          "Authentication the Mesos bridge requires: basic:FILE (user:password lines) or"
              + " bearer:FILE (one token per line); the file must be mode 0600. Empty for none.",
          Parsers.string(),
          "");

  public static final Setting<Boolean> MESOS_ALLOW_INSECURE =
      new Setting<>(
          "mesos-allow-insecure",
          "BOOL",
          "Let the Mesos bridge listen on a non-loopback address without --mesos-auth.",
          Parsers.bool(),
          "false");

  public static final Setting<Duration> MESOS_HEARTBEAT =
      new Setting<>(
          "mesos-heartbeat",
          "DURATION",
          "How often subscribed Mesos schedulers get a HEARTBEAT event.",
          Parsers.duration(),
          "15s");

  public static final Setting<String> MESOS_RESERVE =
      new Setting<>(
          "mesos-reserve",
          "RESOURCES",
          "CPU, memory (MB) and disk (MB) kept back from Mesos offers, such as"
              + " cpus:1;mem:1024;disk:4096.",
          Parsers.string(),
          "cpus:1;mem:1024;disk:0");

  public static final Setting<Boolean> MESOS_FILTER_GPU_RESOURCES =
      new Setting<>(
          "mesos-filter-gpu-resources",
          "BOOL",
          "Offer nothing to Mesos frameworks without the GPU_RESOURCES capability while this node"
              + " has GPUs (Mesos's --filter_gpu_resources).",
          Parsers.bool(),
          "true");

  public static final Setting<Duration> MESOS_EXECUTOR_REGISTRATION_TIMEOUT =
      new Setting<>(
          "mesos-executor-registration-timeout",
          "DURATION",
          "How long a custom Mesos executor has to subscribe before it is destroyed and its"
              + " tasks fail.",
          Parsers.duration(),
          "1m");

  public static final Setting<Duration> MESOS_STATUS_UPDATE_RETRY =
      new Setting<>(
          "mesos-status-update-retry",
          "DURATION",
          "First retry interval of an unacknowledged Mesos status update; it doubles up to 10m.",
          Parsers.duration(),
          "10s");

  public static final Setting<Set<MesosIsolation>> MESOS_ISOLATION =
      new Setting<>(
          "mesos-isolation",
          "LIST",
          "How Mesos tasks are contained, each in its own cgroup: devices (only its own"
              + " accelerators' device nodes open), memory (its mem is a hard limit), cpu (its cpus"
              + " as shares; a CFS quota with the task label acceld.io/cpu-quota=true). none runs"
              + " tasks uncontained, with a warning at start.",
          MesosIsolation::parse,
          MesosIsolation.DEFAULT);

  public static final Setting<Boolean> MESOS_SWITCH_USER =
      new Setting<>(
          "mesos-switch-user",
          "BOOL",
          "Run each Mesos task as its CommandInfo.user, else its FrameworkInfo.user (an unknown"
              + " user fails the task); false runs tasks as the agent's user.",
          Parsers.bool(),
          "true");

  public static final Setting<Boolean> MESOS_ALLOW_ROOT_TASKS =
      new Setting<>(
          "mesos-allow-root-tasks",
          "BOOL",
          "Let a Mesos task run as root (uid 0); otherwise such a task fails, naming this"
              + " setting.",
          Parsers.bool(),
          "false");

  public static final Setting<Path> CGROUP_ROOT =
      new Setting<>(
          "cgroup-root",
          "DIR",
          "Where the cgroup hierarchies are mounted (v1 or v2); Mesos tasks get their cgroups"
              + " under --mesos-cgroup-parent there.",
          Parsers.path(),
          "/sys/fs/cgroup");

  public static final Setting<String> MESOS_CGROUP_PARENT =
      new Setting<>(
          "mesos-cgroup-parent",
          "PATH",
          "The cgroup, relative to each hierarchy under --cgroup-root, that this agent owns: every"
              + " Mesos task's cgroup is made in it, and a restart removes those of tasks that are"
              + " gone. Two agents on one host need two parents: the agent holds its parent while"
              + " the Mesos bridge runs, and a second one on it does not start its bridge.",
          Parsers.relativeNames(),
          "acceld/mesos");

  public static final Setting<String> DRA_DRIVER =
      new Setting<>(
          "dra-driver",
          "NAME",
          "Kubernetes Dynamic Resource Allocation driver name (a DNS subdomain such as"
              + " gpu.acceld.io) under which the node's accelerators are published as"
              + " ResourceSlices and prepared for ResourceClaims, beside the device plugin and on"
              + " the same ledger. Empty turns DRA off.",
          Parsers.string(),
          "");

  public static final Setting<String> KUBECONFIG =
      new Setting<>(
          "kubeconfig",
          "FILE",
          "kubeconfig file for the Kubernetes API server, for --dra-driver. Empty: $KUBECONFIG"
              + " when set, else the pod's in-cluster service account.",
          Parsers.string(),
          "");

  public static final Setting<Path> KUBELET_PLUGINS_DIR =
      new Setting<>(
          "kubelet-plugins-dir",
          "DIR",
          "The kubelet's plugins directory; the DRA socket is DIR/<driver>/dra.sock (its"
              + " registration socket goes in --plugins-registry-dir).",
          Parsers.path(),
          "/var/lib/kubelet/plugins");

  public static final Setting<String> METRICS_AUTH =
      new Setting<>(
          "metrics-auth",
          "KIND:FILE",
          "Authentication /metrics and /devices require: bearer:FILE (the file holds the token and"
              + " must be mode 0600). Empty for none; /healthz and /readyz never require it.",
          Parsers.string(),
          "");

  public static final Setting<String> METRICS_TLS_CERT =
      new Setting<>(
          "metrics-tls-cert",
          "FILE",
          "PEM certificate chain (such as cert-manager's tls.crt) to serve the metrics address over"
              + " HTTPS; needs --metrics-tls-key. Re-read when it changes. Empty for plain HTTP.",
          Parsers.string(),
          "");

  public static final Setting<String> METRICS_TLS_KEY =
      new Setting<>(
          "metrics-tls-key",
          "FILE",
          "PEM private key (PKCS#8, or PKCS#1 RSA; such as cert-manager's tls.key) for"
              + " --metrics-tls-cert.",
          Parsers.string(),
          "");

  public static final Setting<Optional<Path>> NODE_LABELS_FILE =
      new Setting<>(
          "node-labels-file",
          "PATH",
          "Node Feature Discovery feature file the node's labels are written to (GPU Feature"
              + " Discovery's and AMD's node labeller's keys, and acceld.io/*), rewritten when the"
              + " hardware changes; empty turns it off, as does a directory that does not exist.",
          Parsers.optional(Parsers.path()),
          "/etc/kubernetes/node-feature-discovery/features.d/acceld");

  public static final Setting<Boolean> NODE_LABELS_API =
      new Setting<>(
          "node-labels-api",
          "BOOL",
          "Also publish the node's labels as a Node Feature Discovery NodeFeature object"
              + " (nfd.k8s-sigs.io/v1alpha1) named acceld-features-for-<node> in the agent's"
              + " namespace ($POD_NAMESPACE), as GPU Feature Discovery does; the API server is"
              + " reached as with --kubeconfig.",
          Parsers.bool(),
          "false");

  public static final Setting<Duration> CDI_CHECK_INTERVAL =
      new Setting<>(
          "cdi-check-interval",
          "DURATION",
          "How often the agent re-reads its CDI spec files and rewrites any that are missing or"
              + " changed (0 disables).",
          Parsers.duration(),
          "30s");

  public static final Setting<Duration> LOOP_STUCK_AFTER =
      new Setting<>(
          "loop-stuck-after",
          "DURATION",
          "How long one turn of a loop (discovery scan, health probe, NVML event wait, telemetry"
              + " pass) may run before /healthz fails saying that loop is stuck.",
          Parsers.duration(),
          "2m");

  public static final Setting<Integer> SIMULATE_GPUS =
      new Setting<>(
          "simulate-gpus",
          "COUNT",
          "How many GPUs --simulate's node has (1 to 256), in groups of 8 laid out like the 8-GPU"
              + " node: each its own two NUMA nodes, four PCIe switches and NVLink. Ignored without"
              + " --simulate.",
          Parsers.integer(1, 256),
          "8");

  public static final Setting<Path> SIMULATE_DIR =
      new Setting<>(
          "simulate-dir",
          "DIR",
          "Where --simulate writes its node, in a new owner-only directory deleted on exit; a tmpfs"
              + " keeps the start fast. The JVM's temporary directory when DIR cannot be written."
              + " Ignored without --simulate.",
          Parsers.path(),
          "/dev/shm");

  public static final Setting<MigLayout> SIMULATE_MIG =
      new Setting<>(
          "simulate-mig",
          "LAYOUT",
          "MIG devices of --simulate's GPUs: GPU=PROFILE[*N],... per GPU, GPUs separated by ;"
              + " (e.g. 0=1g.10gb*7;1=3g.40gb,2g.20gb*2). Those GPUs are in MIG mode, and"
              + " --mig-strategy is mixed unless given. Ignored without --simulate.",
          MigLayout.parser(),
          "");

  /** All settings, in the order help and the README list them. */
  public static final List<Setting<?>> ALL =
      List.of(
          SYSFS_ROOT,
          DEV_ROOT,
          PROC_ROOT,
          NVML_LIBRARY,
          MIG_STRATEGY,
          EXPECT_DEVICES,
          FAIL_ON_INIT_ERROR,
          LOG_LEVEL,
          LOG_FORMAT,
          RESCAN_INTERVAL,
          DEVICE_PLUGIN_DIR,
          KUBELET_REGISTRATION,
          PLUGINS_REGISTRY_DIR,
          HOST_DEV_PREFIX,
          PASS_DEVICE_SPECS,
          CDI,
          CDI_DIR,
          PRE_START_REQUIRED,
          METRICS_ADDRESS,
          TELEMETRY_INTERVAL,
          NODE_NAME,
          POD_RESOURCES_SOCKET,
          KUBELET_PENDING_LEASE_TTL,
          STATE_DIR,
          XID_IGNORE_ADD,
          XID_IGNORE_REMOVE,
          HEALTH_QUARANTINE,
          HEALTH_PROBE_INTERVAL,
          PRESENCE_POLL_INTERVAL,
          DCGM_MODEL_LABEL,
          MESOS_ADDRESS,
          MESOS_AUTH,
          MESOS_ALLOW_INSECURE,
          MESOS_HEARTBEAT,
          MESOS_RESERVE,
          MESOS_FILTER_GPU_RESOURCES,
          MESOS_EXECUTOR_REGISTRATION_TIMEOUT,
          MESOS_STATUS_UPDATE_RETRY,
          MESOS_ISOLATION,
          MESOS_SWITCH_USER,
          MESOS_ALLOW_ROOT_TASKS,
          CGROUP_ROOT,
          MESOS_CGROUP_PARENT,
          DRA_DRIVER,
          KUBECONFIG,
          KUBELET_PLUGINS_DIR,
          METRICS_AUTH,
          METRICS_TLS_CERT,
          METRICS_TLS_KEY,
          CDI_CHECK_INTERVAL,
          NODE_LABELS_FILE,
          NODE_LABELS_API,
          LOOP_STUCK_AFTER,
          SIMULATE_GPUS,
          SIMULATE_MIG,
          SIMULATE_DIR);

  public static Optional<Setting<?>> byKey(String key) {
    return ALL.stream().filter(s -> s.key().equals(key)).findFirst();
  }
}
