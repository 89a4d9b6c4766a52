package io.acceld.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Decides which resource, if any, a PCI device is advertised under. The operator's rules are tried
 * first, then the built-in ones; the first match wins. A device no rule matches is never
 * advertised: that is what keeps a server's BMC VGA controller, its NICs and its bridges out.
 */
public final class DeviceClassifier {
  public static final int VENDOR_NVIDIA = 0x10de;
  public static final int VENDOR_AMD = 0x1002;
  public static final int VENDOR_INTEL = 0x8086;
  public static final int VENDOR_HABANA = 0x1da3;

  public static final String NVIDIA_GPU = "nvidia.com/gpu";
  public static final String AMD_GPU = "amd.com/gpu";
  public static final String INTEL_I915 = "gpu.intel.com/i915";
  public static final String INTEL_XE = "gpu.intel.com/xe";
  public static final String HABANA_GAUDI = "habana.ai/gaudi";

  /** The built-in table, in match order. Intel's xe rule precedes i915 because it is narrower. */
  public static final List<ClassificationRule> BUILT_IN =
      List.of(
          ClassificationRule.of(VENDOR_NVIDIA, ClassPattern.baseClass(0x03), NVIDIA_GPU),
          ClassificationRule.of(VENDOR_AMD, ClassPattern.classAndSubclass(0x0300), AMD_GPU),
          ClassificationRule.of(VENDOR_AMD, ClassPattern.classAndSubclass(0x0380), AMD_GPU),
          ClassificationRule.of(VENDOR_AMD, ClassPattern.baseClass(0x12), AMD_GPU),
          new ClassificationRule(
              OptionalInt.of(VENDOR_INTEL),
              OptionalInt.empty(),
              Optional.of(ClassPattern.baseClass(0x03)),
              Optional.of("xe"),
              INTEL_XE),
          ClassificationRule.of(VENDOR_INTEL, ClassPattern.baseClass(0x03), INTEL_I915),
          new ClassificationRule(
              OptionalInt.of(VENDOR_HABANA),
              OptionalInt.empty(),
              Optional.empty(),
              Optional.empty(),
              HABANA_GAUDI));

  private final List<ClassificationRule> rules;

  public DeviceClassifier(List<ClassificationRule> operatorRules) {
    List<ClassificationRule> all = new ArrayList<>(operatorRules);
    all.addAll(BUILT_IN);
    this.rules = List.copyOf(all);
  }

  /** Whether some rule names a resource for a device of this identity. */
  public boolean claims(PciIdentity identity) {
    for (ClassificationRule rule : rules) {
      if (rule.matches(identity)) {
        return true;
      }
    }
    return false;
  }

  public Optional<String> classify(PciDevice device) {
    for (ClassificationRule rule : rules) {
      if (rule.matches(device)) {
        return Optional.of(rule.resource());
      }
    }
    return Optional.empty();
  }
}
