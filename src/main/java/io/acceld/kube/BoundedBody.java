package io.acceld.kube;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to a bound: past {@code max} bytes the exchange is cancelled
 * and the body completes with {@link TooLarge}, so a 10 MiB object (or a server streaming garbage)
 * costs at most {@code max} bytes of heap.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  /** The body was larger than allowed; {@link #max} says by how much it was cut. */
  static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge(int max) {
      super("the answer is larger than " + max + " bytes");
    }
  }

  private final int max;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  BoundedBody(int max) {
    this.max = max;
  }

  static HttpResponse.BodyHandler<byte[]> handler(int max) {
    return info -> new BoundedBody(max);
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer b : buffers) {
      if (bytes.size() + b.remaining() > max) {
        subscription.cancel();
        result.completeExceptionally(new TooLarge(max));
        return;
      }
      byte[] chunk = new byte[b.remaining()];
      b.get(chunk);
      bytes.writeBytes(chunk);
    }
  }

  @Override
  public void onError(Throwable t) {
    result.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    result.complete(bytes.toByteArray());
  }
}
