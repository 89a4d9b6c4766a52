package io.acceld.metrics;

import io.acceld.util.GuardedBy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The JVM and process series every Java service exports: memory, GC, threads, classes, CPU, uptime.
 * Close it on shutdown: the GC binder listens to GC notifications.
 *
 * <p>Two of Micrometer's processor series fail {@code promtool check metrics}: {@code
 * process_cpu_time_ns_total} (abbreviated unit) and {@code system_cpu_count} (a gauge ending in
 * {@code _count}). They are dropped, and the standard {@code process_cpu_seconds_total} replaces
 * the first. Their filter must come before every meter ({@link #filterOn}: on a fresh registry);
 * the meters themselves ({@link #bindMetersTo}) can come later: the agent binds them once it has
 * registered with the kubelet, since the platform MXBeans they read cost ~65 ms of a 2-core node's
 * start-up, on the way to Register.
 */
public final class JvmMetrics implements MeterBinder, AutoCloseable {
  @GuardedBy("this")
  private JvmGcMetrics gc;

  // held here because the counter below references it only weakly
  @GuardedBy("this")
  private OperatingSystemMXBean os;

  @GuardedBy("this")
  private boolean closed;

  /** The filter and the meters, for a registry where nothing else is registered yet. */
  @Override
  public void bindTo(MeterRegistry registry) {
    filterOn(registry);
    bindMetersTo(registry);
  }

  /** Drops Micrometer's two series that fail promtool; before any meter is registered. */
  public static void filterOn(MeterRegistry registry) {
    registry
        .config()
        .meterFilter(
            MeterFilter.deny(
                id ->
                    id.getName().equals("process.cpu.time")
                        || id.getName().equals("system.cpu.count")));
  }

  /** The JVM and process meters; {@link #filterOn} must already be on {@code registry}. */
  public synchronized void bindMetersTo(MeterRegistry registry) {
    if (closed || gc != null) {
      return;
    }
    gc = new JvmGcMetrics();
    os = ManagementFactory.getOperatingSystemMXBean();
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    bindProcessCpuSeconds(registry);
  }

  @GuardedBy("this")
  private void bindProcessCpuSeconds(MeterRegistry registry) {
    if (os instanceof com.sun.management.OperatingSystemMXBean sun
        && sun.getProcessCpuTime() >= 0) {
      FunctionCounter.builder("process.cpu", sun, b -> b.getProcessCpuTime() / 1e9)
          .description("CPU time used by the process")
          .baseUnit("seconds")
          .register(registry);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (gc != null) {
      gc.close();
    }
  }
}
