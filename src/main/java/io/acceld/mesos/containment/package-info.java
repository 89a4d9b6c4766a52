/**
 * Containment of Mesos tasks: a cgroup per container (v1 or v2), its device fence, memory and cpu
 * limits, the user it runs as, killing everything in it and cleaning up after an agent restart.
 *
 * <p>{@link io.acceld.mesos.containment.Containment} is the facade the executor uses; it is built
 * from the {@code --mesos-isolation}, {@code --mesos-switch-user}, {@code
 * --mesos-allow-root-tasks}, {@code --cgroup-root} and {@code --dev-root} settings, given as plain
 * values in {@link io.acceld.mesos.containment.ContainmentSettings}.
 */
package io.acceld.mesos.containment;
