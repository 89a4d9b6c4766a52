package io.acceld.mesos.wire;

/**
 * A JSON document that is not a valid message of the expected type; the message says what was
 * wrong, naming the field, in the words of stout's own errors where it has them.
 */
public final class MesosJsonException extends Exception {
  public MesosJsonException(String message) {
    super(message);
  }
}
