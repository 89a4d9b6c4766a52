package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The incumbent's profile strings and resource names (mig-and-labels reference §3). */
class MigProfilesTest {
  static final long A100_40GB = 40960L << 20;
  static final long H100_80GB = 81559L << 20;

  @Test
  void gigabytesAreEighthsOfTheCardTimesItsGibRoundedUpAsGoNvlibHasThem() {
    // go-nvml's mock A100-40GB numbers
    assertThat(MigProfiles.name(1, 1, 4864, A100_40GB, "")).isEqualTo("1g.5gb");
    assertThat(MigProfiles.name(2, 2, 9856, A100_40GB, "")).isEqualTo("2g.10gb");
    assertThat(MigProfiles.name(3, 3, 19968, A100_40GB, "")).isEqualTo("3g.20gb");
    assertThat(MigProfiles.name(7, 7, 40192, A100_40GB, "")).isEqualTo("7g.40gb");
    // an H100 80GB's
    assertThat(MigProfiles.name(1, 1, 9856, H100_80GB, "")).isEqualTo("1g.10gb");
    assertThat(MigProfiles.name(1, 1, 9856, H100_80GB, "+me")).isEqualTo("1g.10gb+me");
    assertThat(MigProfiles.name(3, 3, 40192, H100_80GB, "")).isEqualTo("3g.40gb");
    assertThat(MigProfiles.name(7, 7, 80896, H100_80GB, "")).isEqualTo("7g.80gb");
  }

  @Test
  void aComputeInstanceSmallerThanItsGpuInstanceNamesBoth() {
    assertThat(MigProfiles.name(1, 3, 40192, H100_80GB, "")).isEqualTo("1c.3g.40gb");
  }

  @Test
  void withoutTheCardsMemoryGigabytesAreTheInstancesGibRoundedUp() {
    assertThat(MigProfiles.name(1, 1, 9856, -1, "")).isEqualTo("1g.10gb");
    assertThat(MigProfiles.name(7, 7, 80896, -1, "")).isEqualTo("7g.79gb");
  }

  @Test
  void profileIndicesGiveSlicesAndSuffixesNotTheirIds() {
    assertThat(MigProfiles.shapeOf(0)).hasValue(new MigProfiles.Shape(1, ""));
    assertThat(MigProfiles.shapeOf(4)).hasValue(new MigProfiles.Shape(7, ""));
    assertThat(MigProfiles.shapeOf(7)).hasValue(new MigProfiles.Shape(1, "+me"));
    assertThat(MigProfiles.shapeOf(15)).hasValue(new MigProfiles.Shape(1, "+me.all"));
    assertThat(MigProfiles.shapeOf(13)).hasValue(new MigProfiles.Shape(1, "-me"));
    assertThat(MigProfiles.shapeOf(17)).hasValue(new MigProfiles.Shape(3, "+gfx"));
    assertThat(MigProfiles.shapeOf(18)).isEmpty();
  }

  @Test
  void aResourceNameWritesEveryPlusAsADot() {
    assertThat(MigProfiles.resourceName("nvidia.com", "1g.10gb"))
        .isEqualTo("nvidia.com/mig-1g.10gb");
    assertThat(MigProfiles.resourceName("nvidia.com", "1g.10gb+me"))
        .isEqualTo("nvidia.com/mig-1g.10gb.me");
    assertThat(MigProfiles.resourceName("nvidia.com", "1g.10gb+me.all"))
        .isEqualTo("nvidia.com/mig-1g.10gb.me.all");
    assertThat(MigProfiles.resourceName("nvidia.com", "1g.10gb-me"))
        .isEqualTo("nvidia.com/mig-1g.10gb-me");
  }
}
