package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

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
}
