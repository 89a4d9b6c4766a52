package io.acceld.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.testing.SelfSignedCertificate;
import io.acceld.util.JsonNodes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ServerSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KubeApi} against a server scripted byte by byte on a real socket (plain or TLS): the
 * framing it must read, the answers it must refuse, and the deadlines no server can stretch. The
 * well-behaved API server's side (the verbs, the statuses, watches that resume) is {@code
 * KubeApiDouble}'s, in the DRA tests.
 */
class KubeApiTest {
  /** The timeout of the tests about deadlines: short, so that they are. */
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /**
   * The timeout of every other test: a TLS handshake in a JVM that has not yet loaded JSSE takes
   * over half a second on a busy 2-core machine, and those tests are not about time.
   */
  private static final Duration PATIENT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private ScriptedServer server;

  /** What a script that holds its connection without a word waits for. */
  private final CountDownLatch testOver = new CountDownLatch(1);

  @AfterEach
  void stop() throws IOException {
    testOver.countDown();
    if (server != null) {
      server.close();
    }
  }

  /** What the server does with one accepted connection, after reading the request head. */
  interface Script {
    void run(String requestHead, InputStream in, OutputStream out) throws Exception;
  }

  /** Accepts connections on loopback and plays {@link Script} on each, one thread each. */
  static final class ScriptedServer implements AutoCloseable {
    final ServerSocket socket;
    final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    private final Script script;
    private final List<Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();

    ScriptedServer(ServerSocketFactory factory, Script script) throws IOException {
      this.socket = factory.createServerSocket(0, 50, InetAddress.getLoopbackAddress());
      this.script = script;
      Thread acceptor = new Thread(this::accept, "scripted-api-server");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private void accept() {
      while (!socket.isClosed()) {
        try {
          Socket s = socket.accept();
          accepted.add(s);
          Thread t =
              new Thread(
                  () -> {
                    try (s) {
                      String head = readHead(s.getInputStream());
                      requests.add(head);
                      script.run(head, s.getInputStream(), s.getOutputStream());
                    } catch (Exception e) {
                      // the client went away: that is what some tests are about
                    }
                  },
                  "scripted-api-connection");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        head.write(b);
        matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : 0;
      }
      return head.toString(StandardCharsets.ISO_8859_1);
    }

    URI uri(String scheme) {
      return URI.create(scheme + "://localhost:" + socket.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  private KubeApi plain(Script script) throws IOException {
    return plain(script, PATIENT);
  }

  private KubeApi plain(Script script, Duration timeout) throws IOException {
    server = new ScriptedServer(ServerSocketFactory.getDefault(), script);
    return new KubeApi(config(server.uri("http"), List.of()), timeout);
  }

  private static KubeConfig config(URI server, List<java.security.cert.Certificate> cas) {
    return new KubeConfig(
        server, cas, false, new TokenSource.Fixed("s3cret"), Optional.empty(), "the test's config");
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  @Test
  void aRequestCarriesItsHostTokenAndBodyAndAChunkedAnswerIsRead() throws Exception {
    try (KubeApi api =
        plain(
            (head, in, out) -> {
              in.readNBytes(Integer.parseInt(header(head, "Content-Length")));
              write(
                  out,
                  "HTTP/1.1 100 Continue\r\n\r\n"
                      + "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
                      + "5;ext=1\r\n{\"a\":\r\n5\r\n \"b\"}\r\n0\r\nTrailer: x\r\n\r\n");
            })) {
      JsonNode answer = api.create("/apis/x/v1/things", JsonNodes.parse("{\"n\":1}".getBytes()));
      assertThat(answer.path("a").asText()).isEqualTo("b");
      String head = server.requests.poll(5, TimeUnit.SECONDS);
      assertThat(head)
          .startsWith("POST /apis/x/v1/things HTTP/1.1\r\n")
          .contains("Host: localhost:" + server.socket.getLocalPort() + "\r\n")
          .contains("Authorization: Bearer s3cret\r\n")
          .contains("Content-Type: application/json\r\n")
          .contains("Content-Length: 7\r\n")
          .contains("Connection: close\r\n");
    }
  }

  private static String header(String head, String name) {
    for (String line : head.split("\r\n")) {
      if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new AssertionError("no " + name + " in " + head);
  }

  @Test
  void aTokenWithALineBreakCannotAddHeadersOfItsOwn() throws Exception {
    server =
        new ScriptedServer(
            ServerSocketFactory.getDefault(),
            (head, in, out) -> write(out, "HTTP/1.1 204 No Content\r\n\r\n"));
    KubeConfig forged =
        new KubeConfig(
            server.uri("http"),
            List.of(),
            false,
            new TokenSource.Fixed("abc\r\nImpersonate-User: admin"),
            Optional.empty(),
            "the test's config");
    try (KubeApi api = new KubeApi(forged, PATIENT)) {
      assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e ->
                  assertThat(e.getMessage())
                      .contains("the Authorization header's value has a line break in it"));
    }
    String sent = server.requests.poll(200, TimeUnit.MILLISECONDS);
    assertThat(sent == null ? "" : sent).doesNotContain("Impersonate-User");
  }

  @Test
  void aServerThatTricklesItsAnswerIsCutAtTwiceTheTimeout() throws Exception {
    CountDownLatch cut = new CountDownLatch(1);
    try (KubeApi api =
        plain(
            (head, in, out) -> {
              write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{");
              try {
                // a byte each 100 ms: never silent for a whole timeout
                while (!testOver.await(100, TimeUnit.MILLISECONDS)) {
                  write(out, " ");
                }
              } catch (IOException e) {
                cut.countDown();
              }
            },
            TIMEOUT)) {
      long started = System.nanoTime();
      assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION);
                assertThat(e.getMessage()).contains("no answer within " + TIMEOUT);
              });
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(TIMEOUT.multipliedBy(2))
          .isLessThan(Duration.ofSeconds(5));
      assertThat(cut.await(10, TimeUnit.SECONDS)).as("the connection was closed").isTrue();
    }
  }

  @Test
  void aServerThatStopsReadingTheRequestCannotHoldTheWriter() throws Exception {
    try (KubeApi api =
        plain(
            (head, in, out) -> {
              testOver.await(); // the head read, the body never
            },
            TIMEOUT)) {
      // More than the loopback's socket buffers hold, so the write blocks in the kernel.
      JsonNode huge = JsonNodes.object().put("pad", "x".repeat(32 << 20));
      long started = System.nanoTime();
      assertThatThrownBy(() -> api.create("/apis/x/v1/things", huge))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION);
                assertThat(e.getMessage()).contains("no answer within " + TIMEOUT);
              });
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void malformedAnswersAreBadResponsesThatSayWhatWasWrong() throws Exception {
    assertBadResponse("SSH-2.0-OpenSSH_9.6\r\n", "not an HTTP/1.x status line: \"SSH-2.0");
    assertBadResponse(
        "HTTP/1.1 200 OK\r\nX-Big: " + "x".repeat(9000) + "\r\n\r\n", "longer than 8192 bytes");
    assertBadResponse(
        "HTTP/1.1 200 OK\r\n" + ("X-Many: yes\r\n").repeat(6000) + "\r\n",
        "the response head is larger than 65536 bytes");
    assertBadResponse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size: \"zz\"");
    assertBadResponse(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}",
        "two different Content-Length headers");
    assertBadResponse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n"
            + "X-Trailer: y\r\n".repeat(6000),
        "the trailers are larger than 65536 bytes");
  }

  @Test
  void aConnectionThatEndsEarlyIsAConnectionFailureThatSaysWhere() throws Exception {
    assertFails("", ApiException.Kind.CONNECTION, "closed the connection without answering");
    assertFails(
        "HTTP/1.1 200 OK\r\nContent-", ApiException.Kind.CONNECTION, "inside the response head");
    assertFails(
        "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}",
        ApiException.Kind.CONNECTION,
        "closed the connection 48 bytes early");
    assertFails(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{}",
        ApiException.Kind.CONNECTION,
        "closed the connection inside a chunk");
  }

  private void assertBadResponse(String answer, String expected) throws Exception {
    assertFails(answer, ApiException.Kind.BAD_RESPONSE, expected);
  }

  private void assertFails(String answer, ApiException.Kind kind, String expected)
      throws Exception {
    try (KubeApi api = plain((head, in, out) -> write(out, answer))) {
      assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(kind);
                assertThat(e.getMessage()).startsWith("GET /api/v1/nodes/a: ").contains(expected);
                assertThat(e.getMessage()).hasSizeLessThan(300).doesNotContain("\n");
              });
    } finally {
      server.close();
    }
  }

  @Test
  void aWatchSilentLongerThanItsQuietBoundIsADeadConnection() throws Exception {
    try (KubeApi api =
            plain(
                (head, in, out) -> {
                  write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                  testOver.await(); // connected, and silent
                });
        KubeApi.Watch watch = api.watch("/apis/x/v1/things?watch=true", Duration.ofMillis(300))) {
      long started = System.nanoTime();
      assertThatThrownBy(watch::next)
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void aPlainWatchClosedFromAnotherThreadEndsItsBlockedReadAtOnce() throws Exception {
    try (KubeApi api = plain(KubeApiTest::oneEventThenSilence)) {
      assertClosingEndsTheBlockedRead(api);
    }
  }

  @Test
  void aTlsWatchClosedFromAnotherThreadEndsItsBlockedReadAtOnce() throws Exception {
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, null);
    server =
        new ScriptedServer(
            SelfSignedCertificate.serving(crt, key).getServerSocketFactory(),
            KubeApiTest::oneEventThenSilence);
    java.security.cert.Certificate ca;
    try (InputStream in = java.nio.file.Files.newInputStream(crt)) {
      ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    try (KubeApi api = new KubeApi(config(server.uri("https"), List.of(ca)), PATIENT)) {
      assertClosingEndsTheBlockedRead(api);
    }
  }

  @Test
  void closingTheClientEndsItsOpenWatchesAndRefusesNewCalls() throws Exception {
    KubeApi api = plain(KubeApiTest::oneEventThenSilence);
    KubeApi.Watch watch = api.watch("/apis/x/v1/things?watch=true", Duration.ofMinutes(10));
    assertThat(watch.next().path("type").asText()).isEqualTo("ADDED");
    CompletableFuture<Object> blocked = nextInAnotherThread(watch);
    api.close();
    assertThat(blocked.get(5, TimeUnit.SECONDS)).isNotNull();
    assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
        .hasMessageContaining("the client is closed");
  }

  private static void oneEventThenSilence(String head, InputStream in, OutputStream out)
      throws Exception {
    byte[] event = "{\"type\":\"ADDED\",\"object\":{}}\n".getBytes(StandardCharsets.UTF_8);
    write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    write(out, Integer.toHexString(event.length) + "\r\n");
    out.write(event);
    write(out, "\r\n");
    in.read(); // until the client closes
  }

  private static void assertClosingEndsTheBlockedRead(KubeApi api) throws Exception {
    KubeApi.Watch watch = api.watch("/apis/x/v1/things?watch=true", Duration.ofMinutes(10));
    assertThat(watch.next().path("type").asText()).isEqualTo("ADDED");
    CompletableFuture<Object> blocked = nextInAnotherThread(watch);
    watch.close();
    // The read ends with the end of the stream or an exception, not when the server speaks.
    assertThat(blocked.get(5, TimeUnit.SECONDS)).isNotNull();
  }

  /** {@code watch.next()} in a thread of its own: what it returned or threw, once it has. */
  private static CompletableFuture<Object> nextInAnotherThread(KubeApi.Watch watch)
      throws InterruptedException {
    CompletableFuture<Object> result = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                JsonNode next = watch.next();
                result.complete(next == null ? "the end" : next);
              } catch (ApiException e) {
                result.complete(e);
              }
            },
            "watch-reader");
    reader.setDaemon(true);
    reader.start();
    // Blocked in the read: the thread parks in the socket, not before it.
    while (reader.getState() == Thread.State.NEW
        || (reader.getState() == Thread.State.RUNNABLE && !inSocketRead(reader))) {
      Thread.onSpinWait();
      if (result.isDone()) {
        break;
      }
    }
    return result;
  }

  private static boolean inSocketRead(Thread t) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getMethodName().contains("read") && e.getClassName().contains("Socket")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void anIpv6ServerIsReachedWithItsLiteralInTheHostHeader() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    ServerSocket probe;
    try {
      probe = new ServerSocket();
      probe.bind(new InetSocketAddress(v6, 0));
    } catch (IOException e) {
      org.junit.jupiter.api.Assumptions.assumeTrue(false, "no IPv6 loopback here");
      return;
    }
    probe.close();
    server =
        new ScriptedServer(
            new ServerSocketFactory() {
              @Override
              public ServerSocket createServerSocket(int port) throws IOException {
                return createServerSocket(port, 50, v6);
              }

              @Override
              public ServerSocket createServerSocket(int port, int backlog) throws IOException {
                return createServerSocket(port, backlog, v6);
              }

              @Override
              public ServerSocket createServerSocket(int port, int backlog, InetAddress ignored)
                  throws IOException {
                ServerSocket s = new ServerSocket();
                s.bind(new InetSocketAddress(v6, port), backlog);
                return s;
              }
            },
            (head, in, out) -> write(out, "HTTP/1.1 204 No Content\r\n\r\n"));
    URI uri = URI.create("http://[::1]:" + server.socket.getLocalPort() + "/base/");
    try (KubeApi api = new KubeApi(config(uri, List.of()), PATIENT)) {
      api.delete("/api/v1/nodes/a");
    }
    assertThat(server.requests.poll(5, TimeUnit.SECONDS))
        .startsWith("DELETE /base/api/v1/nodes/a HTTP/1.1\r\n")
        .contains("Host: [::1]:" + server.socket.getLocalPort() + "\r\n");
  }
}
