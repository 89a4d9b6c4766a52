package io.acceld.discovery;

import io.acceld.inventory.ResourceNames;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Names the resource of the PCI devices it matches. Every criterion given must match; criteria left
 * empty match anything.
 */
public record ClassificationRule(
    OptionalInt vendor,
    OptionalInt device,
    Optional<ClassPattern> pciClass,
    Optional<String> driver,
    String resource) {

  public ClassificationRule {
    Objects.requireNonNull(resource, "resource");
    ResourceNames.problem(resource)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
    if (vendor.isEmpty() && device.isEmpty() && pciClass.isEmpty() && driver.isEmpty()) {
      throw new IllegalArgumentException(
          "a rule for "
              + resource
              + " must match on at least one of vendor, device, class, driver");
    }
  }

  public boolean matches(PciDevice d) {
    return matches(d.identity());
  }

  public boolean matches(PciIdentity d) {
    return (vendor.isEmpty() || vendor.getAsInt() == d.vendor())
        && (device.isEmpty() || device.getAsInt() == d.device())
        && (pciClass.isEmpty() || pciClass.get().matches(d.classCode()))
        && (driver.isEmpty() || d.boundTo(driver.get()));
  }

  /** A rule on vendor and class. */
  public static ClassificationRule of(int vendor, ClassPattern pciClass, String resource) {
    return new ClassificationRule(
        OptionalInt.of(vendor),
        OptionalInt.empty(),
        Optional.of(pciClass),
        Optional.empty(),
        resource);
  }
}
