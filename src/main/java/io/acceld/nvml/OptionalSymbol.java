package io.acceld.nvml;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link NvmlLibrary} function that older drivers lack. The agent works without it and
 * loses only {@link #value()}; {@code acceld doctor} tells a driver that is merely old (some of
 * these missing) from a library that is not a whole NVML (any other function missing).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface OptionalSymbol {
  /** What the agent goes without when the driver lacks the function, for people. */
  String value();
}
