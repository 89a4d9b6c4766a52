package io.acceld.cli;

import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run by {@link JulBridgeIT} in a JVM of its own, on the shipped jar and without the tests' {@code
 * logback-test.xml}, so logback is set up by {@link LogbackDefaults} as in the agent: logs through
 * java.util.logging as grpc does, after {@code --log-level args[0]} is applied.
 */
public final class JulBridgeProbe {
  private JulBridgeProbe() {}

  public static void main(String[] args) throws ClassNotFoundException {
    // As the agent starts: Main's class set-up picks the SLF4J provider, before any logger.
    Class.forName(Main.class.getName());
    LoggerFactory.getLogger(JulBridgeProbe.class).info("logback is set up");
    Logging.configure(args[0], "text");
    Logger grpc = Logger.getLogger("io.grpc.internal.Probe");
    grpc.warning("a JUL warning");
    grpc.info("a JUL info");
    grpc.fine("a JUL fine");
    Logger.getLogger("io.grpc.netty.shaded.io.netty.Probe").info("a Netty info");
  }
}
