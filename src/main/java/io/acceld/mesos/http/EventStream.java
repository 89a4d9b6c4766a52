package io.acceld.mesos.http;

import com.google.protobuf.Message;

/**
 * One subscriber's open event stream (scheduler or executor {@code Event}s). The HTTP layer encodes
 * each event in the negotiated media type as one RecordIO record in one HTTP chunk.
 *
 * <p>{@link #send} never blocks the caller: each stream has its own bounded queue and writer, so a
 * slow reader delays nobody else. A stream whose reader falls too far behind is closed, as a broken
 * connection would be.
 */
public interface EventStream {
  /** Queues {@code event}; false once the stream is closed (the event is dropped). */
  boolean send(Message event);

  /** Ends the HTTP response; idempotent. */
  void close();

  boolean isOpen();

  /**
   * Runs {@code listener} once when the stream ends, whoever ended it (the client hung up, {@link
   * #close}, or the reader fell behind); at once if it already ended.
   */
  void onClose(Runnable listener);
}
