package io.acceld.testing.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The kubelet's IsExtendedResourceName, case by case (§3.2 step 3). */
class ExtendedResourceNamesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "example.com/gpu",
        "nvidia.com/mig-1g.5gb",
        "acceld.io/GPU_a100",
        "a/b",
        "example.com/a123456789a123456789a123456789a123456789a123456789a123456789abc", // 63
      })
  void accepted(String name) {
    assertThat(ExtendedResourceNames.isValid(name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "gpu", // unprefixed: native
        "kubernetes.io/gpu",
        "foo.kubernetes.io/gpu",
        "notkubernetes.io/gpu", // contains "kubernetes.io/": native to the kubelet
        "requests.example.com/gpu",
        "Example.com/gpu", // upper-case domain
        "example.com/", // empty name part
        "/gpu", // empty domain
        "example.com/-gpu",
        "example.com/gpu-",
        "example.com/g/pu",
        "example..com/gpu",
        "example.com/a123456789a123456789a123456789a123456789a123456789a123456789abcd", // 64
      })
  void rejected(String name) {
    assertThat(ExtendedResourceNames.isValid(name)).isFalse();
  }

  @org.junit.jupiter.api.Test
  void theDomainLimitCountsTheRequestsPrefix() {
    // "requests." (9) + domain must stay within 253.
    String domain =
        "a".repeat(63) + "." + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(52);
    assertThat(domain.length()).isEqualTo(244);
    assertThat(ExtendedResourceNames.isValid(domain + "/gpu")).isTrue();
    assertThat(ExtendedResourceNames.isValid(domain + "d/gpu")).isFalse();
  }
}
