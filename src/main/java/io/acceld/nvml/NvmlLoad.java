package io.acceld.nvml;

import java.util.List;

/**
 * What an attempt to load and initialise NVML came to. The agent turns a failure into one WARN and
 * runs on sysfs alone ({@link NvmlLoader#load}); {@code acceld doctor} turns it into a line with
 * the fix ({@link NvmlLoader#attempt}).
 */
public sealed interface NvmlLoad {
  /** {@code --nvml-library none}. */
  record Disabled() implements NvmlLoad {}

  /**
   * No candidate could be loaded.
   *
   * @param tried each name or path tried, with why it failed
   */
  record NotFound(List<String> tried) implements NvmlLoad {
    public NotFound {
      tried = List.copyOf(tried);
    }
  }

  /**
   * A library loaded but NVML did not come up.
   *
   * @param source the name or path that loaded
   * @param returnCode nvmlInit_v2's code, or {@link NvmlReturn#ERROR_FUNCTION_NOT_FOUND} when the
   *     library has no nvmlInit_v2 at all
   * @param reason what went wrong and, where one is known, the likely cause
   */
  record InitFailed(String source, int returnCode, String reason) implements NvmlLoad {}

  /** NVML is up. The caller owns {@code nvml} and closes it. */
  record Loaded(Nvml nvml) implements NvmlLoad {}
}
