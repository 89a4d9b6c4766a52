/**
 * A kubelet double for integration tests: {@link io.acceld.testing.kubelet.KubeletDouble} serves
 * {@code kubelet.sock} (and optionally watches {@code plugins_registry}) over real Unix sockets and
 * behaves like the kubelet's device manager, per shared/reference/kubelet-device-plugin.md §8.
 *
 * <pre>{@code
 * try (KubeletDouble kubelet = KubeletDouble.start(tmp.resolve("device-plugins"))) {
 *   // start the agent with --device-plugin-dir = kubelet.deviceDir()
 *   Registration r = kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(10));
 *   kubelet.awaitDevices("nvidia.com/gpu", d -> d.size() == 2, Duration.ofSeconds(10));
 *   ContainerAllocation a = kubelet.admitContainer("nvidia.com/gpu", 1);
 *   assertThat(kubelet.calls("nvidia.com/gpu", PluginRpc.GET_PREFERRED_ALLOCATION)).isEqualTo(1);
 *   kubelet.restart(Duration.ofMillis(200));
 *   kubelet.awaitRegistration("nvidia.com/gpu", x -> x.sequence() == 2, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Keep socket paths under 107 bytes: a JUnit {@code @TempDir} under /tmp is fine.
 */
package io.acceld.testing.kubelet;
