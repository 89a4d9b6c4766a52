package io.acceld.util;

import java.nio.charset.StandardCharsets;

/**
 * Cuts a message the agent sends a peer (a gRPC status, an HTTP error body) to a number of UTF-8
 * bytes, with a note of how much was left out. Such messages often name what the peer sent (IDs,
 * device lists), so without a bound a peer decides how large the agent's answer is, and an answer
 * over the peer's own limit reaches it as a transport error with no reason at all.
 */
public final class BoundedText {
  /** The note is at most this many bytes: {@code ... (2147483647 more characters)}. */
  private static final int NOTE_BYTES = 40;

  private BoundedText() {}

  /**
   * {@code text} if it fits in {@code maxBytes} of UTF-8, else as much as fits with {@code ... (N
   * more characters)}, cut between whole characters (never half a surrogate pair).
   */
  public static String bound(String text, int maxBytes) {
    if (maxBytes <= NOTE_BYTES) {
      throw new IllegalArgumentException("maxBytes must exceed " + NOTE_BYTES + ": " + maxBytes);
    }
    if (text.length() <= maxBytes / 3 || text.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
      return text;
    }
    int budget = maxBytes - NOTE_BYTES;
    int end = 0;
    int bytes = 0;
    while (end < text.length()) {
      int cp = text.codePointAt(end);
      int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + size > budget) {
        break;
      }
      bytes += size;
      end += Character.charCount(cp);
    }
    return text.substring(0, end) + "... (" + (text.length() - end) + " more characters)";
  }
}
