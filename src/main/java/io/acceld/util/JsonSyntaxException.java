package io.acceld.util;

import java.io.IOException;

/**
 * A document {@link JsonTrees#parse} refused: what is wrong ({@link #problem}), and where, as a
 * 1-based line and column (in characters) of the input.
 */
public final class JsonSyntaxException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String problem;
  private final int line;
  private final int column;

  JsonSyntaxException(String problem, int line, int column) {
    super(problem + " (line " + line + ", column " + column + ")");
    this.problem = problem;
    this.line = line;
    this.column = column;
  }

  /** What is wrong, without the place. */
  public String problem() {
    return problem;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }
}
