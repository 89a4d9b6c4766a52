package io.acceld.transport;

import io.acceld.util.PropertyDefaults;
import java.util.Map;

/**
 * Netty's switches are system properties, read once per JVM when its first class initializes, so
 * {@link #install()} must run before any Netty class is used: {@link UnixGrpc}'s constructor calls
 * it, and every Netty the agent uses is made there. A property the operator set with {@code -D}
 * wins.
 *
 * <ul>
 *   <li>{@code io.netty.jfr.enabled=false} (shaded into gRPC under {@code io.grpc.netty.shaded.}):
 *       with it on (the default wherever the JVM has Flight Recorder), Netty registers its buffer
 *       allocator's JFR event classes as the first buffer is allocated, which starts JFR's metadata
 *       and bytecode instrumentation inside the first Register and ListAndWatch: about 80 classes
 *       and a third of a second of the measured start on 2 busy cores, for events no one records.
 *   <li>{@code io.netty.allocator.type=unpooled}, which gRPC's own allocator choice reads too: the
 *       pooled allocator keeps a 2 MiB chunk of direct memory per arena it has touched (two, for
 *       the kubelet's calls and our Register), resident for good, to serve a few messages of a few
 *       hundred bytes a minute. Unpooled buffers are freed as each message is written: steady RSS
 *       91.5 to 86.7 MiB on the eight-GPU node (figures.sh --only footprint).
 * </ul>
 */
public final class NettyProperties {
  static final PropertyDefaults DEFAULTS =
      new PropertyDefaults(
          Map.of(
              "io.grpc.netty.shaded.io.netty.jfr.enabled", "false",
              "io.grpc.netty.shaded.io.netty.allocator.type", "unpooled"));

  private NettyProperties() {}

  /** Sets each property the operator has not set; idempotent. */
  public static void install() {
    DEFAULTS.install();
  }
}
