package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientTextTest {
  @Test
  void controlCharactersAndQuotesAreEscapedSoNoLineCanBeForged() {
    assertThat(ClientText.quote("a\nb\r\"c\\\u0000é"))
        .isEqualTo("\"a\\u000ab\\u000d\\\"c\\\\\\u0000\\u00e9\"");
  }

  @Test
  void longTextIsCutAndSaysHowLongItWas() {
    String quoted = ClientText.quote("x".repeat(1_000_000));
    assertThat(quoted)
        .startsWith("\"" + "x".repeat(ClientText.MAX_SHOWN) + "\"")
        .endsWith("... (1000000 characters)");
  }

  @Test
  void ordinaryIdsAreShownAsTheyAre() {
    assertThat(ClientText.quote("GPU-3526a8fc-b24b")).isEqualTo("\"GPU-3526a8fc-b24b\"");
  }

  @Test
  void escapeIsQuoteWithoutTheQuotes() {
    assertThat(ClientText.escape("550.54.15")).isEqualTo("550.54.15");
    assertThat(ClientText.escape("a\n\"b")).isEqualTo("a\\u000a\\\"b");
    assertThat(ClientText.escape("x".repeat(100)))
        .isEqualTo("x".repeat(ClientText.MAX_SHOWN) + "... (100 characters)");
  }
}
