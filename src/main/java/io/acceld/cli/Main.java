package io.acceld.cli;

/** Entry point placeholder while the build is being assembled. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("acceld");
  }
}
