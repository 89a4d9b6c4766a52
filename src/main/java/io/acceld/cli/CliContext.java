package io.acceld.cli;

import java.io.PrintWriter;
import java.util.Map;

/**
 * What a command needs from its process: the environment and the output streams. Passed in rather
 * than read from statics so tests run the CLI in-process with their own environment.
 */
public record CliContext(Map<String, String> env, PrintWriter out, PrintWriter err) {
  public CliContext {
    env = Map.copyOf(env);
  }
}
