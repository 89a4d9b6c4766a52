package io.acceld.testing.kubelet;

/**
 * An error of the kubelet's device manager during admission or container start, with its exact
 * text, e.g. {@code requested number of devices unavailable for example.com/gpu. Requested: 3,
 * Available: 2}. The real kubelet rejects the pod with {@code UnexpectedAdmissionError} and the
 * message {@code Allocate failed due to <this>, which is unexpected}.
 */
public final class DeviceManagerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DeviceManagerException(String message) {
    super(message);
  }

  DeviceManagerException(String message, Throwable cause) {
    super(message, cause);
  }
}
