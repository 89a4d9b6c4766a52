package io.acceld.mesos.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** What the JDK HTTP server itself logs (through java.util.logging), for asserting on it. */
final class JdkServerLog implements AutoCloseable {
  private final Logger logger = Logger.getLogger("com.sun.net.httpserver");
  private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private JdkServerLog() {
    handler.setLevel(Level.ALL);
    logger.addHandler(handler);
  }

  static JdkServerLog capture() {
    return new JdkServerLog();
  }

  List<String> warnings() {
    synchronized (records) {
      return records.stream()
          .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
          .map(LogRecord::getMessage)
          .toList();
    }
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
  }
}
