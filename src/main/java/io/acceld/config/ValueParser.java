package io.acceld.config;

/**
 * Turns the text of a flag, env var or YAML scalar into a typed value. Throws {@link
 * IllegalArgumentException} with a message saying what was expected; the caller adds where.
 */
@FunctionalInterface
public interface ValueParser<T> {
  T parse(String raw);
}
