package io.acceld.testing.kubelet;

/** A registration the kubelet refuses; the message is the kubelet's error text. */
final class RegistrationException extends Exception {
  private static final long serialVersionUID = 1L;

  RegistrationException(String message) {
    super(message);
  }
}
