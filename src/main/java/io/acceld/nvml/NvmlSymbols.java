package io.acceld.nvml;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The NVML functions acceld calls: exactly the methods of {@link NvmlLibrary}, so the list cannot
 * drift from the binding. Those marked {@link OptionalSymbol} are ones older drivers lack.
 */
public final class NvmlSymbols {
  private static final List<String> USED =
      Arrays.stream(NvmlLibrary.class.getDeclaredMethods())
          .filter(m -> !m.isSynthetic() && !m.isDefault())
          .map(Method::getName)
          .distinct()
          .sorted()
          .toList();

  private NvmlSymbols() {}

  /** Every function acceld calls, by name, sorted. */
  public static List<String> used() {
    return USED;
  }

  /**
   * What the agent goes without when {@code symbol} is missing, for an optional function; empty for
   * one every driver acceld supports exports (or a name acceld does not call).
   */
  public static Optional<String> optionalFeature(String symbol) {
    return Arrays.stream(NvmlLibrary.class.getDeclaredMethods())
        .filter(m -> m.getName().equals(symbol))
        .map(m -> m.getAnnotation(OptionalSymbol.class))
        .filter(a -> a != null)
        .map(OptionalSymbol::value)
        .findFirst();
  }
}
