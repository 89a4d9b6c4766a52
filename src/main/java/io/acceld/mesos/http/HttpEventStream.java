package io.acceld.mesos.http;

import com.google.protobuf.Message;
import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.mesos.wire.RecordIo;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's event stream, written by the thread that serves its HTTP exchange: each event is
 * encoded, framed as one RecordIO record, written and flushed, so it leaves as one HTTP chunk.
 *
 * <p>{@link #send} only queues, so an endpoint never waits for a client. A client that reads too
 * slowly fills its queue and is disconnected; a {@link #close} lets the queued events (an ERROR the
 * endpoint sent just before) go out first, but gives a client that does not read them only {@code
 * closeGrace} before it is disconnected too. A disconnection while a write is blocked interrupts
 * the writer: the JDK server's socket channel is interruptible, so the interrupt closes the
 * connection and ends the write at once.
 */
final class HttpEventStream implements EventStream {
  private static final Logger log = LoggerFactory.getLogger(HttpEventStream.class);

  private final String name;
  private final MediaType type;
  private final int capacity;
  private final Duration closeGrace;
  private final ScheduledExecutorService reaper;
  private final LogThrottle throttle;
  private final Thread writer;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final ArrayDeque<Message> queue = new ArrayDeque<>();

  @GuardedBy("lock")
  private final List<Runnable> listeners = new ArrayList<>();

  @GuardedBy("lock")
  private boolean closed;

  /** Set to disconnect now, dropping what is queued: the reader is too slow or gone. */
  @GuardedBy("lock")
  private boolean abandoned;

  @GuardedBy("lock")
  private boolean writing;

  @GuardedBy("lock")
  private boolean ended;

  /** Created on the exchange's own thread, which then calls {@link #writeUntilClosed}. */
  HttpEventStream(
      String name,
      MediaType type,
      int capacity,
      Duration closeGrace,
      ScheduledExecutorService reaper,
      LogThrottle throttle) {
    this.name = name;
    this.type = type;
    this.capacity = capacity;
    this.closeGrace = closeGrace;
    this.reaper = reaper;
    this.throttle = throttle;
    this.writer = Thread.currentThread();
  }

  @Override
  public boolean send(Message event) {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      if (queue.size() >= capacity) {
        long suppressed = throttle.permit("stream-overflow");
        if (suppressed >= 0) {
          log.warn(
              "Closing Mesos event stream {}: its client left {} events unread{}",
              name,
              capacity,
              LogThrottle.suffix(suppressed));
        }
        abandonLocked();
        return false;
      }
      queue.add(event);
      lock.notifyAll();
      return true;
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      lock.notifyAll();
    }
    try {
      reaper.schedule(this::abandon, closeGrace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      abandon(); // the server is stopping: no grace
    }
  }

  private void abandon() {
    synchronized (lock) {
      abandonLocked();
    }
  }

  @GuardedBy("lock")
  private void abandonLocked() {
    if (ended || abandoned) {
      return;
    }
    closed = true;
    abandoned = true;
    queue.clear();
    lock.notifyAll();
    if (writing) {
      writer.interrupt();
    }
  }

  @Override
  public boolean isOpen() {
    synchronized (lock) {
      return !closed;
    }
  }

  @Override
  public void onClose(Runnable listener) {
    synchronized (lock) {
      if (!ended) {
        listeners.add(listener);
        return;
      }
    }
    listener.run();
  }

  /**
   * Writes queued events to the exchange's response body until the stream is closed or the client
   * is gone, then ends the response (or drops the connection) and runs the close listeners. Runs on
   * the exchange's thread, which it holds for the stream's life.
   */
  void writeUntilClosed(HttpExchange exchange) {
    OutputStream out = exchange.getResponseBody();
    boolean clean = false;
    try {
      while (true) {
        Message next;
        synchronized (lock) {
          while (queue.isEmpty() && !closed) {
            lock.wait();
          }
          if (abandoned) {
            break;
          }
          next = queue.poll();
          if (next == null) { // closed, and everything queued has been written
            clean = true;
            break;
          }
          writing = true;
        }
        try {
          out.write(RecordIo.encode(MesosCodec.encode(next, type)));
          out.flush();
        } finally {
          doneWriting();
        }
      }
    } catch (IOException e) {
      log.debug("Mesos event stream {} ended: its client is gone ({})", name, e.toString());
    } catch (InterruptedException e) {
      log.debug("Mesos event stream {} interrupted", name);
    } catch (RuntimeException e) {
      log.warn("Mesos event stream {} failed to write an event", name, e);
    } finally {
      end(exchange, clean);
    }
  }

  /** Leaves the writing state, consuming an interrupt meant for the write that just ended. */
  private void doneWriting() {
    synchronized (lock) {
      writing = false;
      Thread.interrupted();
    }
  }

  private void end(HttpExchange exchange, boolean clean) {
    boolean drop;
    synchronized (lock) {
      closed = true;
      queue.clear();
      drop = !clean || abandoned;
      writing = true; // the last chunk can block too: abandon() may interrupt it
    }
    if (drop) {
      // The last write then fails at once and the JDK server closes the connection, rather than
      // wait on a client that is gone or does not read.
      Thread.currentThread().interrupt();
    }
    List<Runnable> toRun;
    try {
      exchange.close();
    } catch (RuntimeException e) {
      log.debug("Mesos event stream {}: ending the response failed ({})", name, e.toString());
    } finally {
      synchronized (lock) {
        writing = false;
        ended = true;
        Thread.interrupted();
        toRun = List.copyOf(listeners);
        listeners.clear();
      }
    }
    for (Runnable listener : toRun) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        log.warn("A close listener of Mesos event stream {} failed", name, e);
      }
    }
  }
}
