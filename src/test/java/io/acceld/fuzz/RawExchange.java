package io.acceld.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 request as raw bytes on a socket, so that a fuzz case can send what no HTTP client
 * would (any method, header or body), and the answer's status line, headers and (with a
 * Content-Length) body. Keeps the connection for the next request when the server does.
 */
final class RawExchange implements AutoCloseable {
  record Answer(int status, String body, boolean keepAlive) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawExchange(int port) throws IOException {
    socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  /**
   * Sends {@code request} and reads the answer. A streaming (chunked) answer's body is not read:
   * the caller closes the connection.
   */
  Answer send(byte[] request) throws IOException {
    out.write(request);
    out.flush();
    String statusLine = readLine();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP status line: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    long length = -1;
    boolean close = false;
    boolean chunked = false;
    String line;
    while (!(line = readLine()).isEmpty()) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring("content-length:".length()).trim());
      } else if (lower.startsWith("connection:") && lower.contains("close")) {
        close = true;
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    String body = "";
    if (length > 0) {
      byte[] bytes = in.readNBytes((int) Math.min(length, 1 << 20));
      body = new String(bytes, StandardCharsets.UTF_8);
    }
    return new Answer(status, body, !close && !chunked && length >= 0);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      line.write(b);
    }
    if (b < 0) {
      throw new EOFException("connection ended before an answer: " + line);
    }
    String text = line.toString(StandardCharsets.ISO_8859_1);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
