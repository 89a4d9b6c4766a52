package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BoundedTextTest {
  @Test
  void textThatFitsIsUnchanged() {
    assertThat(BoundedText.bound("device GPU-1 is held", 64)).isEqualTo("device GPU-1 is held");
    String exactly = "é".repeat(512); // 1024 bytes
    assertThat(BoundedText.bound(exactly, 1024)).isSameAs(exactly);
  }

  @Test
  void longTextIsCutToTheByteBudgetWithANote() {
    String cut = BoundedText.bound("a".repeat(5000), 1024);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
    assertThat(cut).endsWith("... (4016 more characters)").startsWith("aaaa");
  }

  @Test
  void multiByteCharactersAreNeverSplit() {
    // 4-byte characters (surrogate pairs in Java) and 3-byte ones
    String text = "\uD83D\uDE80".repeat(300) + "\u20AC".repeat(300);
    String cut = BoundedText.bound(text, 1024);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
    String kept = cut.substring(0, cut.indexOf("... ("));
    assertThat(kept.codePoints().allMatch(cp -> cp == 0x1F680)).isTrue();
    assertThat(kept.codePointCount(0, kept.length())).isEqualTo((1024 - 40) / 4);
  }

  @Test
  void aBudgetTooSmallForTheNoteIsRefused() {
    assertThatThrownBy(() -> BoundedText.bound("x", 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes");
  }
}
