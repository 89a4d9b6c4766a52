package io.acceld.mesos.http;

/**
 * How much the Mesos HTTP server lets clients use.
 *
 * @param maxBodyBytes the largest request body read; a larger one is answered 413 without being
 *     read (a LAUNCH_GROUP of a hundred tasks is well under 1 MiB)
 * @param requestThreads threads for requests that are not event streams; they are answered in
 *     milliseconds, so a few suffice, and no stream can take them (see {@code maxStreams})
 * @param maxStreams event streams open at once: each holds a thread writing to its client, so this
 *     bounds the server's threads at {@code requestThreads + maxStreams}; one more SUBSCRIBE is
 *     answered 503
 * @param streamQueueEvents events one stream may have queued unwritten before it is closed as too
 *     slow, as a broken connection would be
 */
public record MesosHttpLimits(
    int maxBodyBytes, int requestThreads, int maxStreams, int streamQueueEvents) {
  public MesosHttpLimits {
    if (maxBodyBytes < 1 || requestThreads < 1 || maxStreams < 1 || streamQueueEvents < 1) {
      throw new IllegalArgumentException("every Mesos HTTP limit must be positive: " + this);
    }
  }

  /** 4 MiB bodies, 16 request threads, 256 streams of 1,024 queued events each. */
  public static MesosHttpLimits defaults() {
    return new MesosHttpLimits(4 << 20, 16, 256, 1024);
  }
}
