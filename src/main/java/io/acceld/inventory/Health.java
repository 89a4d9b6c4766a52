package io.acceld.inventory;

/** A device's health as the kubelet understands it: anything but exactly "Healthy" is unhealthy. */
public enum Health {
  HEALTHY("Healthy"),
  UNHEALTHY("Unhealthy");

  private final String wireValue;

  Health(String wireValue) {
    this.wireValue = wireValue;
  }

  /** The exact string the kubelet device-plugin API uses. */
  public String wireValue() {
    return wireValue;
  }
}
