package io.acceld.config;

import java.util.List;

/**
 * How MIG-enabled GPUs are advertised ({@code --mig-strategy}), the three strategies and resource
 * names of NVIDIA's device plugin, so existing pod specs keep working.
 */
public enum MigStrategy {
  /** Every GPU is a whole {@code nvidia.com/gpu}, MIG-enabled or not; MIG devices are not used. */
  NONE("none"),
  /**
   * MIG-enabled GPUs are not advertised; their MIG devices are, as {@code nvidia.com/gpu}. Every
   * GPU must be MIG-enabled with devices of one profile, else none are advertised.
   */
  SINGLE("single"),
  /**
   * Whole GPUs stay {@code nvidia.com/gpu}; each MIG profile is {@code nvidia.com/mig-<profile>}.
   */
  MIXED("mixed");

  private final String word;

  MigStrategy(String word) {
    this.word = word;
  }

  /** How the operator writes it. */
  public String word() {
    return word;
  }

  @Override
  public String toString() {
    return word;
  }

  static ValueParser<MigStrategy> parser() {
    return Parsers.choice(List.of(values()), MigStrategy::word);
  }
}
