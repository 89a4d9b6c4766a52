package io.acceld.testing.mesos;

import com.google.protobuf.Message;
import io.acceld.mesos.wire.CallDecodeException;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.testing.Waits;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A subscription's answer: its status and headers, and, for a 200, the events as a client decodes
 * them (RecordIO, then the codec the response's Content-Type names), read by a thread of its own.
 */
public final class MesosEventStream<E extends Message> implements AutoCloseable {
  private static final int MAX_RECORD = 16 << 20;

  private final HttpResponse<InputStream> response;
  private final Function<E, Enum<?>> typeOf;
  private final BlockingQueue<E> events = new LinkedBlockingQueue<>();
  private final List<E> seen = java.util.Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch ended = new CountDownLatch(1);
  private final String errorBody;
  private volatile Throwable failure;

  MesosEventStream(HttpResponse<InputStream> response, E prototype, Function<E, Enum<?>> typeOf)
      throws IOException {
    this.response = response;
    this.typeOf = typeOf;
    if (response.statusCode() != 200) {
      try (InputStream in = response.body()) {
        errorBody = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      ended.countDown();
      return;
    }
    errorBody = "";
    MediaType type =
        MediaType.ofContentType(response.headers().firstValue("Content-Type").orElse(""))
            .orElseThrow(() -> new IOException("stream Content-Type " + response.headers()));
    Thread reader =
        new NamedThreads("mesos-test-stream-reader")
            .newThread(() -> read(response.body(), type, prototype));
    reader.start();
  }

  @SuppressWarnings("unchecked")
  private void read(InputStream in, MediaType type, E prototype) {
    RecordIoReader records = new RecordIoReader(in, MAX_RECORD);
    try (in) {
      Optional<byte[]> record;
      while ((record = records.next()).isPresent()) {
        E event = (E) MesosCodec.decode(record.get(), type, prototype);
        synchronized (seen) {
          seen.add(event);
          seen.notifyAll(); // awaitMoreThan
        }
        events.add(event);
      }
    } catch (IOException | CallDecodeException | RuntimeException e) {
      failure = e;
    } finally {
      ended.countDown();
      synchronized (seen) {
        seen.notifyAll();
      }
    }
  }

  public int status() {
    return response.statusCode();
  }

  public Optional<String> header(String name) {
    return response.headers().firstValue(name);
  }

  public Optional<String> streamId() {
    return header("Mesos-Stream-Id");
  }

  /** The body of a non-200 answer. */
  public String errorBody() {
    return errorBody;
  }

  /** The next event in order, failing after {@code timeout} (scaled by {@link Waits}). */
  public E nextEvent(Duration timeout) {
    return poll(Waits.scaled(timeout));
  }

  private E poll(Duration timeout) {
    try {
      E event = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (event == null) {
        throw new AssertionError(
            "no event within " + timeout + (failure == null ? "" : "; reader failed: " + failure));
      }
      return event;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * The next event in order, waiting as long as it takes, or empty once the server has ended the
   * stream and every event was read: for a program (an executor) rather than a test.
   */
  public Optional<E> take() throws InterruptedException {
    while (true) {
      E event = events.poll(100, TimeUnit.MILLISECONDS);
      if (event != null) {
        return Optional.of(event);
      }
      if (ended.getCount() == 0 && events.isEmpty()) {
        return Optional.empty();
      }
    }
  }

  /**
   * The next event of {@code type}, skipping others, failing after {@code timeout} (scaled by
   * {@link Waits}).
   */
  public E awaitEvent(Enum<?> type, Duration timeout) {
    timeout = Waits.scaled(timeout);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no " + type + " event within " + timeout + "; saw " + seen);
      }
      E event = poll(Duration.ofNanos(left));
      if (typeOf.apply(event) == type) {
        return event;
      }
    }
  }

  /** Every event read so far. */
  public List<E> seen() {
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  /**
   * Waits until more than {@code count} events have been read (see {@link #seen()}), the stream
   * ended, or {@code timeout} passed: for a reader of {@code seen()} that wants the next event.
   *
   * @return whether more than {@code count} events have been read
   */
  public boolean awaitMoreThan(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (seen) {
      while (seen.size() <= count && ended.getCount() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(seen, left);
      }
      return seen.size() > count;
    }
  }

  /** Waits for the server to end the stream; true if it did within {@code timeout}. */
  public boolean awaitEnd(Duration timeout) throws InterruptedException {
    return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Why reading stopped early, if it did (not for a clean end). */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /** Hangs up, as a client that goes away does. */
  @Override
  public void close() throws IOException {
    response.body().close();
  }
}
