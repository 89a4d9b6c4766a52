package io.acceld.doctor;

/** How one check came out, with the mark a line starts with and its word in the JSON. */
public enum Status {
  PASS("✓", "pass"),
  FAIL("✗", "fail"),
  SKIP("–", "skip");

  private final String mark;
  private final String word;

  Status(String mark, String word) {
    this.mark = mark;
    this.word = word;
  }

  /** The line's first character: ✓, ✗ or – (an en dash). */
  public String mark() {
    return mark;
  }

  /** {@code pass}, {@code fail} or {@code skip}: the {@code status} of the JSON document. */
  public String word() {
    return word;
  }
}
