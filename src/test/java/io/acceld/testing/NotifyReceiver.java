package io.acceld.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * systemd's side of {@code NOTIFY_SOCKET}: a python3 child process that binds an AF_UNIX datagram
 * socket (a path, or {@code @name} for the abstract namespace) and prints each datagram as one
 * line, newlines shown as {@code |}. The JDK 17 cannot bind a datagram Unix socket itself.
 */
public final class NotifyReceiver implements AutoCloseable {
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final String SCRIPT =
      "import socket,sys\n"
          + "s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\n"
          + "a=sys.argv[1]\n"
          + "s.bind('\\0'+a[1:] if a.startswith('@') else a)\n"
          + "print('bound',flush=True)\n"
          + "while True:\n"
          + "  print(s.recv(4096).decode().replace('\\n','|'),flush=True)\n";

  private final String address;
  private final Process process;
  private final List<String> datagrams = new CopyOnWriteArrayList<>();

  private NotifyReceiver(String address, Process process) {
    this.address = address;
    this.process = process;
  }

  /** Skips the test without python3, except in CI, where it fails. */
  public static void assumePython() {
    if (!Files.isExecutable(PYTHON)) {
      if (System.getenv("CI") != null) {
        fail("python3 is required in CI to stand in for systemd's notify socket");
      }
      assumeTrue(false, "python3 is not installed");
    }
  }

  /** Binds {@code address} and returns once the socket exists. */
  public static NotifyReceiver listen(String address) throws IOException {
    assumePython();
    Process process =
        new ProcessBuilder(PYTHON.toString(), "-c", SCRIPT, address)
            .redirectErrorStream(true)
            .start();
    NotifyReceiver receiver = new NotifyReceiver(address, process);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    assertThat(out.readLine()).as("receiver output").isEqualTo("bound");
    Thread reader =
        new Thread(
            () -> {
              try {
                for (String line; (line = out.readLine()) != null; ) {
                  receiver.datagrams.add(line);
                }
              } catch (IOException e) {
                // the receiver was stopped
              }
            },
            "notify-receiver");
    reader.setDaemon(true);
    reader.start();
    return receiver;
  }

  /** The value for {@code NOTIFY_SOCKET}. */
  public String address() {
    return address;
  }

  /** Every datagram so far, in order. */
  public List<String> datagrams() {
    return List.copyOf(datagrams);
  }

  public boolean received(String line) {
    return datagrams.stream().anyMatch(d -> ("|" + d).contains("|" + line + "|"));
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor(5, TimeUnit.SECONDS);
  }
}
