package io.acceld.labels;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules a node label must follow, as Node Feature Discovery's master applies them to every
 * label a feature file gives (Kubernetes' qualified name and label value), and the value sanitising
 * of GPU Feature Discovery, so that the values we write are the ones it writes.
 */
public final class LabelRules {
  /** The longest label name (after the prefix) and the longest value. */
  public static final int MAX_LENGTH = 63;

  /** The longest prefix: a DNS subdomain. */
  private static final int MAX_PREFIX_LENGTH = 253;

  private static final Pattern NAME = Pattern.compile("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");
  private static final Pattern PREFIX =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern VALUE =
      Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  private static final Pattern NOT_KEPT = Pattern.compile("[^A-Za-z0-9\\-_. ]");

  private LabelRules() {}

  /**
   * Why NFD would refuse the label {@code key=value}, or empty if it takes it: the key must be
   * {@code prefix/name} with a DNS-subdomain prefix outside {@code kubernetes.io} (NFD's own {@code
   * feature.node.} and {@code profile.node.kubernetes.io} excepted) and a name of at most 63
   * characters of {@code [A-Za-z0-9-_.]} starting and ending with a letter or digit; the value
   * follows the name's rule but may be empty.
   */
  public static Optional<String> problem(String key, String value) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return Optional.of(
          "the key has no prefix (NFD would put it under feature.node.kubernetes.io)");
    }
    String prefix = key.substring(0, slash);
    String name = key.substring(slash + 1);
    if (prefix.isEmpty()
        || prefix.length() > MAX_PREFIX_LENGTH
        || !PREFIX.matcher(prefix).matches()) {
      return Optional.of("the prefix '" + prefix + "' is not a lower-case DNS subdomain");
    }
    if (deniedNamespace(prefix)) {
      return Optional.of(
          "the prefix '" + prefix + "' is in the kubernetes.io namespace NFD denies");
    }
    if (name.length() > MAX_LENGTH) {
      return Optional.of("the name is " + name.length() + " characters, over " + MAX_LENGTH);
    }
    if (!NAME.matcher(name).matches()) {
      return Optional.of(
          "the name must be [A-Za-z0-9-_.] (one '/' after the prefix), starting and ending with a"
              + " letter or digit");
    }
    if (value.length() > MAX_LENGTH) {
      return Optional.of("the value is " + value.length() + " characters, over " + MAX_LENGTH);
    }
    if (!VALUE.matcher(value).matches()) {
      return Optional.of(
          "the value must be empty or [A-Za-z0-9-_.], starting and ending with a letter or digit");
    }
    return Optional.empty();
  }

  private static boolean deniedNamespace(String prefix) {
    if (!prefix.equals("kubernetes.io") && !prefix.endsWith(".kubernetes.io")) {
      return false;
    }
    return !(prefix.equals("feature.node.kubernetes.io")
        || prefix.endsWith(".feature.node.kubernetes.io")
        || prefix.equals("profile.node.kubernetes.io")
        || prefix.endsWith(".profile.node.kubernetes.io"));
  }

  /**
   * A name made fit for a label value as GPU Feature Discovery makes product names fit: every
   * character but letters, digits, {@code -}, {@code _}, {@code .} and space is deleted, then the
   * space-separated words are joined with {@code -} ({@code "NVIDIA A100-SXM4-40GB"} gives {@code
   * NVIDIA-A100-SXM4-40GB}). No length cap, as in GFD: a longer value is then refused whole.
   */
  public static String sanitise(String text) {
    String kept = NOT_KEPT.matcher(text).replaceAll("");
    String words = kept.strip();
    return words.isEmpty() ? "" : String.join("-", words.split(" +"));
  }

  /**
   * The label-name form of an extended resource name, for {@code acceld.io/<name>.count}. A
   * resource is {@code <DNS subdomain>/<name>}, and a label name may not hold a {@code /} (only the
   * key's prefix ends with one), so the slash becomes {@code _}: a character no DNS subdomain
   * contains, hence the first {@code _} always marks where the resource's domain ended and the form
   * can be read back ({@code nvidia.com/mig-1g.10gb} gives {@code nvidia.com_mig-1g.10gb}). Every
   * other character of a valid resource name is already valid in a label name.
   */
  public static String resourceLabelName(String resource) {
    return resource.replaceFirst("/", "_");
  }
}
