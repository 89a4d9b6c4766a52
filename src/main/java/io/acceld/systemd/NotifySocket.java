package io.acceld.systemd;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Sends one datagram to systemd's notification socket, as {@code sd_notify(3)} does, through libc
 * by JNA: the JDK 17 has no AF_UNIX datagram channel, and this needs no native code of ours.
 *
 * <p>The address is {@code NOTIFY_SOCKET} as systemd sets it: a filesystem path, or {@code @name}
 * for the abstract namespace (the {@code @} becomes a leading NUL byte).
 */
public final class NotifySocket {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;
  private static final int MSG_NOSIGNAL = 0x4000;

  /** {@code sizeof(struct sockaddr_un)} on Linux: a 2-byte family, then 108 bytes of path. */
  private static final int SOCKADDR_UN_SIZE = 110;

  private static final int PATH_MAX = 108;

  /** The libc calls used, with their C signatures. */
  interface Libc extends Library {
    /** {@code int socket(int domain, int type, int protocol)}. */
    int socket(int domain, int type, int protocol) throws LastErrorException;

    /**
     * {@code ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr
     * *addr, socklen_t addrlen)}; {@code size_t} and {@code ssize_t} are 64-bit on LP64 Linux.
     */
    long sendto(int fd, byte[] buf, long len, int flags, byte[] addr, int addrlen)
        throws LastErrorException;

    /** {@code int close(int fd)}. */
    int close(int fd) throws LastErrorException;
  }

  private final Libc libc;
  private final byte[] address;
  private final int addressLength;
  private final String described;

  private NotifySocket(Libc libc, byte[] address, int addressLength, String described) {
    this.libc = libc;
    this.address = address;
    this.addressLength = addressLength;
    this.described = described;
  }

  /**
   * @param notifySocket the value of {@code NOTIFY_SOCKET}
   * @throws IllegalArgumentException if it is empty, relative, or too long for {@code sun_path}
   */
  public static NotifySocket of(String notifySocket) {
    Objects.requireNonNull(notifySocket, "notifySocket");
    boolean abstractName = notifySocket.startsWith("@");
    if (!abstractName && !notifySocket.startsWith("/")) {
      throw new IllegalArgumentException(
          "NOTIFY_SOCKET must be an absolute path or @name, not '" + notifySocket + "'");
    }
    byte[] path = notifySocket.getBytes(StandardCharsets.UTF_8);
    if (path.length < 2 || path.length >= PATH_MAX) {
      throw new IllegalArgumentException(
          "NOTIFY_SOCKET must be 2 to " + (PATH_MAX - 1) + " bytes long: '" + notifySocket + "'");
    }
    ByteBuffer sockaddr = ByteBuffer.allocate(SOCKADDR_UN_SIZE).order(ByteOrder.nativeOrder());
    sockaddr.putShort((short) AF_UNIX);
    sockaddr.put(path);
    if (abstractName) {
      sockaddr.put(2, (byte) 0); // abstract namespace: the name's length counts, no NUL at the end
    }
    // A path is NUL-terminated (the buffer is zeroed); an abstract name is exactly its bytes.
    int length = 2 + path.length + (abstractName ? 0 : 1);
    return new NotifySocket(Native.load("c", Libc.class), sockaddr.array(), length, notifySocket);
  }

  /** Sends {@code message} (newline-separated {@code KEY=value} lines) as one datagram. */
  public void send(String message) throws IOException {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    int fd;
    try {
      fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    } catch (LastErrorException e) {
      throw new IOException("socket(AF_UNIX, SOCK_DGRAM) failed: errno " + e.getErrorCode(), e);
    }
    try {
      libc.sendto(fd, bytes, bytes.length, MSG_NOSIGNAL, address, addressLength);
    } catch (LastErrorException e) {
      throw new IOException(
          "sending to NOTIFY_SOCKET " + described + " failed: errno " + e.getErrorCode(), e);
    } finally {
      try {
        libc.close(fd);
      } catch (LastErrorException ignored) {
        // close of a datagram socket we only sent on: nothing to recover
      }
    }
  }

  @Override
  public String toString() {
    return "NotifySocket[" + described + "]";
  }
}
