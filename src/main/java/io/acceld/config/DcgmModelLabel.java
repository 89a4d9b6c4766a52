package io.acceld.config;

import java.util.List;

/**
 * The label carrying the GPU model on {@code DCGM_FI_*} series ({@code --dcgm-model-label}): two
 * spellings, because dashboards written for dcgm-exporter use its camel case, which promtool's lint
 * rejects.
 */
public enum DcgmModelLabel {
  /** {@code model_name}: passes promtool's lint. */
  PROMTOOL_CLEAN("model_name"),
  /** {@code modelName}: dcgm-exporter's exact spelling. */
  DCGM_EXPORTER("modelName");

  private final String word;

  DcgmModelLabel(String word) {
    this.word = word;
  }

  /** How the operator writes it, which is also the label name. */
  public String word() {
    return word;
  }

  @Override
  public String toString() {
    return word;
  }

  static ValueParser<DcgmModelLabel> parser() {
    return Parsers.choice(List.of(values()), DcgmModelLabel::word);
  }
}
