package io.acceld.inventory;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The kubelet's rules for an extended resource name (IsExtendedResourceName plus IsQualifiedName on
 * {@code requests.<name>}). Checked when the name enters the agent, so a bad config rule fails at
 * start-up with a clear message rather than at registration.
 */
public final class ResourceNames {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern NAME_PART =
      Pattern.compile("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");

  private ResourceNames() {}

  /** Why {@code name} is not a valid extended resource name, or empty if it is. */
  public static Optional<String> problem(String name) {
    if (name == null || name.isEmpty()) {
      return Optional.of("the resource name is empty");
    }
    int slash = name.indexOf('/');
    if (slash < 0 || name.indexOf('/', slash + 1) >= 0) {
      return Optional.of(
          "'" + name + "' must be <domain>/<name> with exactly one '/', like vendor.com/gpu");
    }
    String prefix = name.substring(0, slash);
    String part = name.substring(slash + 1);
    // The kubelet's own test is "contains kubernetes.io/", so notkubernetes.io/x is refused too.
    if (name.contains("kubernetes.io/")) {
      return Optional.of("'" + name + "' uses the reserved kubernetes.io domain");
    }
    if (name.startsWith("requests.")) {
      return Optional.of("'" + name + "' must not start with 'requests.'");
    }
    if (("requests." + prefix).length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
      return Optional.of("'" + prefix + "' in '" + name + "' is not a lower-case DNS subdomain");
    }
    if (part.length() > 63 || !NAME_PART.matcher(part).matches()) {
      return Optional.of(
          "'"
              + part
              + "' in '"
              + name
              + "' must be 1-63 characters of [A-Za-z0-9-_.],"
              + " starting and ending with a letter or digit");
    }
    return Optional.empty();
  }

  public static boolean isValid(String name) {
    return problem(name).isEmpty();
  }
}
