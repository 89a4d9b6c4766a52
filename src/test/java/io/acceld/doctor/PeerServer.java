package io.acceld.doctor;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A peer on a loopback port for doctor to meet: an HTTP server answering fixed statuses with one
 * body (another program on the Mesos port, an agent that is not well), or a listener that accepts
 * connections and never says a word.
 */
final class PeerServer implements AutoCloseable {
  private final HttpServer http;
  private final ServerSocket silent;
  private final List<Socket> accepted = new ArrayList<>();
  private final Thread acceptor;

  private PeerServer(HttpServer http, ServerSocket silent, Thread acceptor) {
    this.http = http;
    this.silent = silent;
    this.acceptor = acceptor;
  }

  /** Answers each path of {@code statuses} with its status and {@code body}; others 404. */
  static PeerServer answering(Map<String, Integer> statuses, String body) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          Integer status = statuses.get(exchange.getRequestURI().getPath());
          byte[] bytes = (status == null ? "not found" : body).getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status == null ? 404 : status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
    return new PeerServer(server, null, null);
  }

  /** Accepts every connection and answers nothing, until closed. */
  static PeerServer silent() throws IOException {
    ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    PeerServer[] self = new PeerServer[1];
    Thread acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  Socket s = socket.accept();
                  synchronized (self[0].accepted) {
                    self[0].accepted.add(s);
                  }
                } catch (IOException e) {
                  return; // closed
                }
              }
            },
            "test-silent-peer");
    self[0] = new PeerServer(null, socket, acceptor);
    acceptor.setDaemon(true);
    acceptor.start();
    return self[0];
  }

  int port() {
    return http != null ? http.getAddress().getPort() : silent.getLocalPort();
  }

  @Override
  public void close() throws Exception {
    if (http != null) {
      http.stop(0);
      return;
    }
    silent.close();
    acceptor.join(5000);
    synchronized (accepted) {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
