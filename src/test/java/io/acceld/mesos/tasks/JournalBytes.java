package io.acceld.mesos.tasks;

/** Finding bytes in a journal file, for the tests that damage one on purpose. */
final class JournalBytes {
  private JournalBytes() {}

  /** Where {@code needle} first starts in {@code haystack}; fails the test if nowhere. */
  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (haystack[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
