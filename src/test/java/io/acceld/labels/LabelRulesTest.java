package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LabelRulesTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "NVIDIA A100-SXM4-40GB|NVIDIA-A100-SXM4-40GB",
        "NVIDIA H100 80GB HBM3|NVIDIA-H100-80GB-HBM3",
        "Tesla T4|Tesla-T4",
        // GFD deletes what a label value cannot hold, then joins the words
        "NVIDIA RTX 6000 Ada Generation (48GB)|NVIDIA-RTX-6000-Ada-Generation-48GB",
        "  GeForce   RTX/4090  |GeForce-RTX4090",
        "PowerEdge XE9680|PowerEdge-XE9680",
        "A+B_C.d|AB_C.d",
      })
  void sanitisesAsGpuFeatureDiscoveryDoes(String raw, String expected) {
    assertThat(LabelRules.sanitise(raw)).isEqualTo(expected);
  }

  @Test
  void sanitisingNothingButSymbolsGivesAnEmptyValue() {
    assertThat(LabelRules.sanitise("(+/)")).isEmpty();
    assertThat(LabelRules.sanitise("   ")).isEmpty();
  }

  @Test
  void acceptsWhatNfdAccepts() {
    assertThat(LabelRules.problem("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")).isEmpty();
    assertThat(LabelRules.problem("nvidia.com/gpu.sharing-strategy", "")).isEmpty();
    assertThat(LabelRules.problem("feature.node.kubernetes.io/x", "1")).isEmpty();
    assertThat(LabelRules.problem("sub.feature.node.kubernetes.io/x", "1")).isEmpty();
    assertThat(LabelRules.problem("profile.node.kubernetes.io/x", "1")).isEmpty();
    assertThat(LabelRules.problem("a.io/" + "n".repeat(63), "v".repeat(63))).isEmpty();
  }

  @Test
  void refusesWhatNfdRefusesSayingWhy() {
    assertThat(LabelRules.problem("gpu.count", "8")).get().asString().contains("no prefix");
    assertThat(LabelRules.problem("Nvidia.com/gpu", "8")).get().asString().contains("DNS");
    assertThat(LabelRules.problem("kubernetes.io/gpu", "8")).get().asString().contains("denies");
    assertThat(LabelRules.problem("node.kubernetes.io/gpu", "8")).isPresent();
    assertThat(LabelRules.problem("a.io/" + "n".repeat(64), "v"))
        .get()
        .asString()
        .contains("64 characters");
    assertThat(LabelRules.problem("a.io/" + "n", "v".repeat(64)))
        .get()
        .asString()
        .contains("value is 64");
    assertThat(LabelRules.problem("a.io/-gpu", "v")).isPresent();
    assertThat(LabelRules.problem("a.io/gpu.", "v")).isPresent();
    assertThat(LabelRules.problem("a.io/b/c", "v")).isPresent();
    assertThat(LabelRules.problem("a.io/gpu", "-x")).isPresent();
    assertThat(LabelRules.problem("a.io/gpu", "AMD Instinct")).isPresent();
    assertThat(LabelRules.problem("a.io/gpu", "a/b")).isPresent();
    assertThat(LabelRules.problem("a.io/", "v")).isPresent();
  }

  @Test
  void aResourceNameBecomesALabelNameThatCanBeReadBack() {
    for (String resource :
        new String[] {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb.me", "habana.ai/gaudi"}) {
      String name = LabelRules.resourceLabelName(resource);
      assertThat(LabelRules.problem("acceld.io/" + name + ".count", "8")).isEmpty();
      int underscore = name.indexOf('_');
      assertThat(name.substring(0, underscore) + "/" + name.substring(underscore + 1))
          .isEqualTo(resource);
    }
    assertThat(LabelRules.resourceLabelName("gpu.intel.com/i915")).isEqualTo("gpu.intel.com_i915");
  }
}
