package io.acceld.metrics;

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
 * the first. Bind this first on a fresh registry: the filter applies to meters registered after it.
 */
public final class JvmMetrics implements MeterBinder, AutoCloseable {
  private final JvmGcMetrics gc = new JvmGcMetrics();
  // held here because the counter below references it only weakly
  private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();

  @Override
  public void bindTo(MeterRegistry registry) {
    registry
        .config()
        .meterFilter(
            MeterFilter.deny(
                id ->
                    id.getName().equals("process.cpu.time")
                        || id.getName().equals("system.cpu.count")));
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    bindProcessCpuSeconds(registry);
  }

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
  public void close() {
    gc.close();
  }
}
