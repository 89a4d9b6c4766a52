package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Sha256Test {
  @Test
  void theStandardsTestVectors() {
    assertThat(Sha256.hex(new byte[0]))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(Sha256.hex("abc".getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(
            Sha256.hex(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
                    .getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  }

  @Test
  void agreesWithTheJdksOnEveryLengthAroundTheBlockBoundaries() throws Exception {
    Random random = new Random(256);
    for (int length = 0; length <= 1_100; length++) {
      byte[] data = new byte[length];
      random.nextBytes(data);
      assertThat(Sha256.hex(data))
          .as("%d bytes", length)
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)));
    }
    byte[] large = new byte[1 << 20];
    random.nextBytes(large);
    assertThat(Sha256.digest(large)).isEqualTo(MessageDigest.getInstance("SHA-256").digest(large));
  }
}
