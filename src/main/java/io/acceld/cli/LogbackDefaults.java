package io.acceld.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The agent's logging, set up in code rather than by a {@code logback.xml}: Logback's XML
 * configurator loads its Joran framework and the JDK's SAX parser, about 600 classes and a tenth to
 * a quarter of a second of every start on 2 cores (measured with {@code -Xlog:class+load}), to read
 * these few lines. {@link AgentLogProvider} calls it directly; other entry points find it through
 * {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}, before logback looks for any
 * XML.
 *
 * <p>An operator's {@code -Dlogback.configurationFile}, or a {@code logback-test.xml} on the class
 * path (the tests'), still wins: then this configurator steps aside.
 */
public final class LogbackDefaults extends ContextAwareBase implements Configurator {
  /** The appender's name, which {@link Logging} looks up to switch it to JSON. */
  static final String APPENDER = "STDERR";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || LogbackDefaults.class.getClassLoader().getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    TextLogLayout layout = new TextLogLayout();
    layout.setContext(context);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    // stderr, so that the JSON of "acceld devices" stays machine-readable on stdout
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName(APPENDER);
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();

    context.getLogger("io.grpc.netty.shaded").setLevel(Level.WARN);
    // grpc looks for its optional census module on every builder and logs the
    // ClassNotFoundException at FINE: noise at debug, since acceld never ships census.
    context.getLogger("io.grpc.internal.ServerImplBuilder").setLevel(Level.INFO);
    context.getLogger("io.grpc.internal.ManagedChannelImplBuilder").setLevel(Level.INFO);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(appender);
    // grpc logs through java.util.logging: bridged in, with logback's levels, when first used.
    JulBridge.routeOnFirstUse(context);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
