package io.acceld.testing.kubelet;

import java.util.regex.Pattern;

/**
 * The kubelet's own check of a device plugin's resource name, {@code
 * v1helper.IsExtendedResourceName}, transcribed independently of the agent's production validator
 * so the double can catch the agent accepting a name the kubelet refuses.
 *
 * <ul>
 *   <li>native (rejected): no {@code /}, or containing {@code kubernetes.io/} anywhere;
 *   <li>must not start with {@code requests.};
 *   <li>{@code "requests." + name} must pass {@code IsQualifiedName}: at most one {@code /}, a
 *       DNS-1123 subdomain prefix of at most 253 characters, and a name part of 1 to 63 characters
 *       matching {@code ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}.
 * </ul>
 */
public final class ExtendedResourceNames {
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern QUALIFIED_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final int DNS1123_SUBDOMAIN_MAX = 253;
  private static final int QUALIFIED_NAME_MAX = 63;
  private static final String REQUESTS_PREFIX = "requests.";

  private ExtendedResourceNames() {}

  /** True iff the kubelet would accept {@code name} as a device plugin's resource name. */
  public static boolean isValid(String name) {
    if (!name.contains("/") || name.contains("kubernetes.io/")) {
      return false; // IsNativeResource
    }
    if (name.startsWith(REQUESTS_PREFIX)) {
      return false;
    }
    return isQualifiedName(REQUESTS_PREFIX + name);
  }

  private static boolean isQualifiedName(String value) {
    String[] parts = value.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      if (prefix.isEmpty()
          || prefix.length() > DNS1123_SUBDOMAIN_MAX
          || !DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
        return false;
      }
      name = parts[1];
    } else {
      return false;
    }
    return !name.isEmpty()
        && name.length() <= QUALIFIED_NAME_MAX
        && QUALIFIED_NAME.matcher(name).matches();
  }
}
