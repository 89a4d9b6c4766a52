package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportWarmUpTest {
  @TempDir Path dir;

  @Test
  void makesTheTransportAndOneCallOverARealSocketThatItRemoves() throws Exception {
    try (TransportWarmUp warmUp = TransportWarmUp.start("warm-up-test", 1, dir)) {
      UnixGrpc grpc = warmUp.transport();

      assertThat(warmUp.awaitCall()).isTrue();
      assertThat(dir.resolve(TransportWarmUp.SOCKET_NAME)).doesNotExist();
      try (var files = Files.list(dir)) {
        assertThat(files).isEmpty();
      }
      // the transport is the caller's to use afterwards
      assertThat(TransportWarmUp.run(grpc, dir)).isTrue();
    }
  }

  @Test
  void aDirectoryThatTakesNoSocketFailsTheCallNotTheTransport() throws Exception {
    // Longer than a socket path may be: the server cannot bind there
    Path deep = Files.createDirectories(dir.resolve("d".repeat(120)));
    try (TransportWarmUp warmUp = TransportWarmUp.start("warm-up-test", 1, deep)) {
      assertThat(warmUp.awaitCall()).isFalse();
      assertThat(warmUp.transport()).isNotNull();
    }
  }

  /**
   * An agent that exits during its start (a metrics port in use) closes the warm-up while its call
   * may still be under way. That must end the call quietly: before, the event loops went first and
   * Netty and gRPC each logged a stack trace for the work the loops refused, on an exit that should
   * print one line.
   */
  @Test
  void closingWhileTheCallIsUnderWayEndsItQuietlyAndRemovesTheSocket() throws Exception {
    try (LogCapture grpcLogs = LogCapture.of("io.grpc")) {
      for (int i = 0; i < 20; i++) {
        Path each = Files.createDirectories(dir.resolve("run-" + i));
        TransportWarmUp warmUp = TransportWarmUp.start("warm-up-close-test", 1, each);
        if (i % 2 == 0) {
          warmUp.transport(); // made: the call is being set up or under way
        }
        warmUp.close();

        assertThat(each.resolve(TransportWarmUp.SOCKET_NAME)).doesNotExist();
      }
      assertThat(grpcLogs.warnings()).isEmpty();
    }
  }
}
