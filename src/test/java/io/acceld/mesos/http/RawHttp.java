package io.acceld.mesos.http;

import com.google.protobuf.Message;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP/1.1 over a plain socket, for what an HTTP client hides: the chunk boundaries of a stream, a
 * request with no Accept header at all, a client that never reads.
 */
final class RawHttp {
  private RawHttp() {}

  record Response(int status, Map<String, String> headers) {
    Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }
  }

  /** A streaming response whose chunks can be read one by one. */
  static final class Stream implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final Response response;

    Stream(Socket socket, InputStream in, Response response) {
      this.socket = socket;
      this.in = in;
      this.response = response;
    }

    int status() {
      return response.status();
    }

    Optional<String> header(String name) {
      return response.header(name);
    }

    /** The next chunk's size line. */
    int nextChunkSize() throws IOException {
      String line = readLine(in);
      int semicolon = line.indexOf(';');
      return Integer.parseInt(semicolon < 0 ? line : line.substring(0, semicolon), 16);
    }

    /** The next chunk, which must hold exactly one RecordIO record: that record's bytes. */
    byte[] nextChunkAsOneRecord() throws IOException {
      int size = nextChunkSize();
      byte[] chunk = in.readNBytes(size);
      if (chunk.length != size || !readLine(in).isEmpty()) {
        throw new EOFException("truncated chunk");
      }
      int newline = indexOf(chunk, (byte) '\n');
      if (newline < 0) {
        throw new AssertionError("chunk does not start with a RecordIO length");
      }
      int length = Integer.parseInt(new String(chunk, 0, newline, StandardCharsets.US_ASCII));
      if (length != chunk.length - newline - 1) {
        throw new AssertionError(
            "chunk of "
                + size
                + " bytes holds a record of "
                + length
                + ": not one record per chunk");
      }
      return Arrays.copyOfRange(chunk, newline + 1, chunk.length);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  static Stream subscribe(int port, MediaType codec, Message call) throws IOException {
    return open(port, codec, call, Optional.of(codec.value()));
  }

  static Response subscribeWithoutAccept(int port, MediaType codec, Message call)
      throws IOException {
    try (Stream stream = open(port, codec, call, Optional.empty())) {
      return stream.response;
    }
  }

  private static Stream open(int port, MediaType codec, Message call, Optional<String> accept)
      throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    // A small receive buffer, so a client that does not read fills it soon.
    socket.setReceiveBufferSize(16 * 1024);
    byte[] body = MesosCodec.encode(call, codec);
    StringBuilder head =
        new StringBuilder("POST /api/v1/scheduler HTTP/1.1\r\n")
            .append("Host: 127.0.0.1:")
            .append(port)
            .append("\r\nContent-Type: ")
            .append(codec.value())
            .append("\r\nContent-Length: ")
            .append(body.length)
            .append("\r\n");
    accept.ifPresent(a -> head.append("Accept: ").append(a).append("\r\n"));
    head.append("\r\n");
    OutputStream out = socket.getOutputStream();
    out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    InputStream in = socket.getInputStream();
    String statusLine = readLine(in);
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    String line;
    while (!(line = readLine(in)).isEmpty()) {
      int colon = line.indexOf(':');
      headers.put(
          line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    return new Stream(socket, in, new Response(status, headers));
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      line.write(b);
    }
    if (b < 0) {
      throw new EOFException("connection ended mid-line: " + line);
    }
    String text = line.toString(StandardCharsets.ISO_8859_1);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  private static int indexOf(byte[] bytes, byte value) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == value) {
        return i;
      }
    }
    return -1;
  }
}
