package io.acceld.kube;

import io.acceld.util.ClientText;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 request and its response, on a connection of its own ({@code Connection: close}).
 *
 * <p>Why not the JDK's {@code java.net.http} client: the agent makes a few JSON calls to the API
 * server (a slice publish on a device change, a claim read per prepare) and one long watch, and for
 * those that client cost 270 classes of its own, a selector thread and a pool of executor threads,
 * and it loaded JSSE and the JDK's whole CA store even for a plain-HTTP server: BENCHMARKS.md,
 * "DRA's API client on a socket of its own". {@code HttpURLConnection} cannot be used either:
 * closing its chunked stream from another thread waits for the read in progress, so a watch could
 * not be ended until the server spoke.
 *
 * <p>What this gives: every read is bound by a deadline (the socket's timeout is set before each
 * read to what is left of it), so neither a silent nor a trickling server holds a caller longer
 * than it allows; the response head is bounded (a line at most {@link #MAX_LINE} bytes, the whole
 * head at most {@link #MAX_HEAD}); the body is framed by {@code Content-Length}, {@code chunked} or
 * the end of the connection; and {@link #close} closes the TCP socket itself, from any thread,
 * which ends a read blocked on it at once (TLS or not).
 *
 * <p>Not pooled: a TLS handshake per call (resumed from the context's session cache) costs less
 * than keeping a connection alive between calls that are minutes apart.
 */
final class Http1Exchange implements AutoCloseable {
  /** The longest status or header line read. */
  static final int MAX_LINE = 8 << 10;

  /** The most bytes of response head (status line and headers) read. */
  static final int MAX_HEAD = 64 << 10;

  /** Where requests go: host, port, and TLS when the server is {@code https}. */
  record Endpoint(String host, int port, SSLSocketFactory tls) {
    /** The Host header's value: the port only when it is not the scheme's default. */
    String hostHeader() {
      String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
      int usual = tls == null ? 80 : 443;
      return port == usual ? h : h + ":" + port;
    }
  }

  /**
   * A response that is not HTTP/1.x, or one framed beyond the bounds. (A connection that ends early
   * is an {@link EOFException}: the network's doing as often as the server's.)
   */
  static final class MalformedResponse extends IOException {
    private static final long serialVersionUID = 1L;

    MalformedResponse(String message) {
      super(message);
    }
  }

  private final Socket raw = new Socket(); // TCP; closing it ends any read, TLS or not
  private final Set<Http1Exchange> registry;
  private final ScheduledExecutorService watchdog;
  private volatile ScheduledFuture<?> guard; // closes the connection at the deadline
  private volatile boolean expired;
  private volatile long deadlineNanos; // 0 once streaming
  private volatile int quietMillis;
  // The caller's thread only:
  private Socket socket; // raw, or the TLS socket layered on it
  private InputStream in;
  private int status;
  private String transferEncoding;
  private String contentLength;
  private InputStream body;

  private Http1Exchange(Set<Http1Exchange> registry, ScheduledExecutorService watchdog) {
    this.registry = registry;
    this.watchdog = watchdog;
    registry.add(this);
  }

  /**
   * Connects, sends the request and reads the response head, all before {@code deadline} (a {@link
   * System#nanoTime} value). The exchange is in {@code registry} from before it connects until it
   * is closed, so that closing every exchange there ends this one too, at any stage.
   *
   * <p>The deadline bounds writes too, which no socket timeout does (a server that stops reading a
   * request body would hold the writer for good): {@code watchdog} closes the connection at the
   * deadline, and whatever it cut short then reads as a {@link SocketTimeoutException}.
   *
   * @throws SocketTimeoutException when the deadline passed first
   * @throws MalformedResponse when the answer is not a bounded HTTP/1.x response head
   * @throws IOException when the connection fails
   */
  static Http1Exchange send(
      Endpoint endpoint,
      String method,
      String target,
      Map<String, String> headers,
      byte[] body,
      long deadline,
      Set<Http1Exchange> registry,
      ScheduledExecutorService watchdog)
      throws IOException {
    Http1Exchange exchange = new Http1Exchange(registry, watchdog);
    try {
      exchange.extendDeadline(deadline);
      exchange.connect(endpoint);
      exchange.write(endpoint, method, target, headers, body);
      exchange.readHead();
      return exchange;
    } catch (IOException e) {
      exchange.close();
      throw exchange.expired ? timedOut(e) : e;
    } catch (RuntimeException e) {
      exchange.close();
      throw e;
    }
  }

  private static SocketTimeoutException timedOut(IOException cause) {
    if (cause instanceof SocketTimeoutException timeout) {
      return timeout;
    }
    SocketTimeoutException timeout = new SocketTimeoutException("the deadline passed");
    timeout.initCause(cause);
    return timeout;
  }

  private void connect(Endpoint endpoint) throws IOException {
    raw.setTcpNoDelay(true);
    raw.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), remaining(deadlineNanos));
    Socket s = raw;
    if (endpoint.tls() != null) {
      SSLSocket tls =
          (SSLSocket) endpoint.tls().createSocket(raw, endpoint.host(), endpoint.port(), true);
      SSLParameters params = tls.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS"); // the host name must match
      tls.setSSLParameters(params);
      raw.setSoTimeout(remaining(deadlineNanos));
      tls.startHandshake();
      s = tls;
    }
    socket = s;
    in = new BufferedInputStream(new TimedInput(s.getInputStream()), 16 << 10);
  }

  /** The deadline for the rest of the exchange (the body), a {@link System#nanoTime} value. */
  void extendDeadline(long deadline) {
    deadlineNanos = deadline;
    cancelGuard();
    guard = watchdog.schedule(this::expire, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  private void cancelGuard() {
    ScheduledFuture<?> g = guard;
    if (g != null) {
      g.cancel(false);
    }
  }

  /** The deadline passed: whatever is blocked on the connection ends. */
  private void expire() {
    expired = true;
    close();
  }

  /** The response's status code. */
  int status() {
    return status;
  }

  /** The response body as its framing delimits it; reads are bound by the deadline. */
  InputStream body() {
    return body;
  }

  /**
   * From now on each read waits at most {@code quiet} for the server to send something, with no
   * deadline for the whole: for a watch, which lasts as long as the server keeps it.
   */
  void streaming(Duration quiet) {
    quietMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, quiet.toMillis()));
    deadlineNanos = 0;
    cancelGuard();
  }

  /** Closes the connection; a read blocked on it, in any thread, ends with an exception. */
  @Override
  public void close() {
    // The TCP socket only: a TLS socket layered on it holds nothing else of the system's, and its
    // own close could wait for a reader in another thread, where this one ends that read at once.
    closeQuietly(raw);
    registry.remove(this);
    cancelGuard();
  }

  private void write(
      Endpoint endpoint, String method, String target, Map<String, String> headers, byte[] body)
      throws IOException {
    StringBuilder head = new StringBuilder(256);
    head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
    head.append("Host: ").append(endpoint.hostHeader()).append("\r\n");
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (h.getValue().indexOf('\r') >= 0 || h.getValue().indexOf('\n') >= 0) {
        // a token file with a line break in it must not add headers of its own
        throw new IOException("the " + h.getKey() + " header's value has a line break in it");
      }
      head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    raw.setSoTimeout(remaining(deadlineNanos));
    OutputStream out = socket.getOutputStream();
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (body != null) {
      out.write(body);
    }
    out.flush();
  }

  private void readHead() throws IOException {
    int[] headBytes = {0};
    String statusLine;
    do { // 1xx answers (100 Continue, 103 Early Hints) come before the real one
      statusLine = line(headBytes);
      if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
        throw new MalformedResponse("not an HTTP/1.x status line: " + ClientText.quote(statusLine));
      }
      try {
        status = Integer.parseInt(statusLine.substring(9, 12));
      } catch (NumberFormatException e) {
        throw new MalformedResponse("not an HTTP/1.x status line: " + ClientText.quote(statusLine));
      }
      if (status < 100 || status > 599) {
        throw new MalformedResponse("status " + status + " is not an HTTP status");
      }
      readHeaders(headBytes);
    } while (status / 100 == 1);
  }

  private void readHeaders(int[] headBytes) throws IOException {
    transferEncoding = null;
    contentLength = null;
    String header;
    while (!(header = line(headBytes)).isEmpty()) {
      int colon = header.indexOf(':');
      if (colon <= 0) {
        throw new MalformedResponse("a header line without a name: " + ClientText.quote(header));
      }
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim();
      if (name.equals("transfer-encoding")) {
        transferEncoding =
            transferEncoding == null ? value : transferEncoding + ", " + value; // in order
      } else if (name.equals("content-length")) {
        if (contentLength != null && !contentLength.equals(value)) {
          throw new MalformedResponse("two different Content-Length headers");
        }
        contentLength = value;
      }
    }
    body = framedBody();
  }

  private InputStream framedBody() throws IOException {
    if (status == 204 || status == 304 || status / 100 == 1) {
      return InputStream.nullInputStream();
    }
    if (transferEncoding != null) {
      String last = transferEncoding.substring(transferEncoding.lastIndexOf(',') + 1).trim();
      return last.equalsIgnoreCase("chunked") ? new ChunkedBody(in) : in; // else: to the close
    }
    if (contentLength != null) {
      long length;
      try {
        length = Long.parseLong(contentLength);
      } catch (NumberFormatException e) {
        length = -1;
      }
      if (length < 0) {
        throw new MalformedResponse(
            "Content-Length is not a length: " + ClientText.quote(contentLength));
      }
      return new LengthBody(in, length);
    }
    return in;
  }

  /** One CRLF- (or LF-) terminated line of the head, bounded, as ISO-8859-1 text. */
  private String line(int[] headBytes) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException(
            headBytes[0] == 0
                ? "the server closed the connection without answering"
                : "the server closed the connection inside the response head");
      }
      if (++headBytes[0] > MAX_HEAD) {
        throw new MalformedResponse("the response head is larger than " + MAX_HEAD + " bytes");
      }
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      if (line.size() >= MAX_LINE) {
        throw new MalformedResponse("a response line is longer than " + MAX_LINE + " bytes");
      }
      line.write(b);
    }
  }

  /** The socket's timeout for the next read: what is left of the deadline, or the quiet bound. */
  private int nextReadTimeout() throws SocketTimeoutException {
    long deadline = deadlineNanos;
    return deadline == 0 ? quietMillis : remaining(deadline);
  }

  private static int remaining(long deadline) throws SocketTimeoutException {
    long millis = Math.max(0, deadline - System.nanoTime()) / 1_000_000;
    if (millis <= 0) {
      throw new SocketTimeoutException("the deadline passed");
    }
    return (int) Math.min(Integer.MAX_VALUE, millis);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing is all we wanted
    }
  }

  /** A stream whose single-byte read is its block read of one byte. */
  private abstract static class BlockInput extends InputStream {
    @Override
    public final int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }
  }

  /** The socket's stream with the timeout set before every read. */
  private final class TimedInput extends BlockInput {
    private final InputStream in;

    TimedInput(InputStream in) {
      this.in = in;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        raw.setSoTimeout(nextReadTimeout());
        return in.read(b, off, len);
      } catch (IOException e) {
        throw expired ? timedOut(e) : e;
      }
    }
  }

  /** A body of exactly {@code Content-Length} bytes. */
  private static final class LengthBody extends BlockInput {
    private final InputStream in;
    private long left;

    LengthBody(InputStream in, long length) {
      this.in = in;
      this.left = length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left == 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("the server closed the connection " + left + " bytes early");
      }
      left -= n;
      return n;
    }
  }

  /** A {@code chunked} body: sizes in hexadecimal, then the data, to a last chunk of size 0. */
  private static final class ChunkedBody extends BlockInput {
    private final InputStream in;
    private long left; // of the current chunk
    private boolean done;

    ChunkedBody(InputStream in) {
      this.in = in;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (left == 0 && !done) {
        left = nextChunkSize();
        if (left == 0) {
          done = true;
          int trailers = 0; // nothing here needs them; they are read, within the head's bound
          for (String line; !(line = chunkLine()).isEmpty(); ) {
            trailers += line.length() + 2;
            if (trailers > MAX_HEAD) {
              throw new MalformedResponse("the trailers are larger than " + MAX_HEAD + " bytes");
            }
          }
        }
      }
      if (done) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("the server closed the connection inside a chunk");
      }
      left -= n;
      if (left == 0 && !chunkLine().isEmpty()) {
        throw new MalformedResponse("a chunk is longer than its size");
      }
      return n;
    }

    private long nextChunkSize() throws IOException {
      String line = chunkLine();
      int end = line.indexOf(';'); // extensions are ignored
      String hex = (end < 0 ? line : line.substring(0, end)).trim();
      if (hex.isEmpty() || hex.length() > 15) {
        throw new MalformedResponse("not a chunk size: " + ClientText.quote(line));
      }
      try {
        return Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        throw new MalformedResponse("not a chunk size: " + ClientText.quote(line));
      }
    }

    private String chunkLine() throws IOException {
      StringBuilder line = new StringBuilder();
      while (true) {
        int b = in.read();
        if (b < 0) {
          throw new EOFException("the server closed the connection inside a chunk header");
        }
        if (b == '\n') {
          int n = line.length();
          return n > 0 && line.charAt(n - 1) == '\r' ? line.substring(0, n - 1) : line.toString();
        }
        if (line.length() >= 1024) {
          throw new MalformedResponse("a chunk header is longer than 1024 bytes");
        }
        line.append((char) b);
      }
    }
  }
}
