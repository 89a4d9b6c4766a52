package io.acceld.dra.apiserver;

/**
 * A byte count as the Kubernetes Quantity the API server would write back: the largest binary
 * suffix that divides it ({@code 80Gi}), else the largest decimal one ({@code 5k}), else the plain
 * number. Writing the canonical form matters: the server canonicalises what it stores, and a slice
 * that reads back differently from what we wrote would be rewritten forever.
 */
public final class Quantities {
  private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  private static final String[] DECIMAL = {"k", "M", "G", "T", "P", "E"};

  private Quantities() {}

  public static String bytes(long bytes) {
    if (bytes <= 0) {
      return "0";
    }
    int binary = 0;
    long b = bytes;
    while (binary < BINARY.length && b % 1024 == 0) {
      b /= 1024;
      binary++;
    }
    if (binary > 0) {
      return b + BINARY[binary - 1];
    }
    int decimal = 0;
    long d = bytes;
    while (decimal < DECIMAL.length && d % 1000 == 0) {
      d /= 1000;
      decimal++;
    }
    return decimal > 0 ? d + DECIMAL[decimal - 1] : Long.toString(bytes);
  }
}
