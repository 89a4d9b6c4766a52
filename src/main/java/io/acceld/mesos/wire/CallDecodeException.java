package io.acceld.mesos.wire;

/** A request body that is not a Call; the message is Mesos's own text for a 400 answer. */
public final class CallDecodeException extends Exception {
  public CallDecodeException(String message) {
    super(message);
  }
}
