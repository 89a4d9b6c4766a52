package io.acceld.labels;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Node Feature Discovery's reading of a feature file, written from its documented rules (the
 * mig-and-labels reference, section 5) and kept apart from the agent's own {@link LabelRules}, so
 * that a file the agent writes is checked against an independent reading: over 65536 bytes the file
 * is skipped whole; each line is trimmed, empty lines skipped, {@code #} starts a comment and
 * {@code # +} a directive; {@code key=value} splits at the first {@code =}, a key alone means
 * {@code true}; an unprefixed key gets {@code feature.node.kubernetes.io/}; then nfd-master refuses
 * a key that is not a qualified name or lies in {@code kubernetes.io}, and a value that is not a
 * label value.
 */
final class NfdFeatureFiles {
  static final int MAX_BYTES = 65536;

  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  /**
   * What NFD makes of a file.
   *
   * @param skipped the whole file was ignored (too big)
   * @param labels the labels nfd-master would apply
   * @param refused lines whose label nfd-master would refuse
   * @param directives {@code # +} lines, which the agent must not write
   */
  record Reading(
      boolean skipped, Map<String, String> labels, List<String> refused, List<String> directives) {}

  private NfdFeatureFiles() {}

  static Reading read(byte[] file) {
    if (file.length > MAX_BYTES) {
      return new Reading(true, Map.of(), List.of(), List.of());
    }
    Map<String, String> labels = new LinkedHashMap<>();
    List<String> refused = new ArrayList<>();
    List<String> directives = new ArrayList<>();
    for (String raw : new String(file, StandardCharsets.UTF_8).split("\n", -1)) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        if (line.startsWith("# +")) {
          directives.add(line);
        }
        continue;
      }
      int eq = line.indexOf('=');
      String key = eq < 0 ? line : line.substring(0, eq);
      String value = eq < 0 ? "true" : line.substring(eq + 1);
      if (!key.contains("/")) {
        key = "feature.node.kubernetes.io/" + key;
      }
      if (accepted(key, value)) {
        labels.put(key, value);
      } else {
        refused.add(line);
      }
    }
    return new Reading(false, labels, refused, directives);
  }

  private static boolean accepted(String key, String value) {
    String[] parts = key.split("/", -1);
    if (parts.length != 2) {
      return false;
    }
    String prefix = parts[0];
    String name = parts[1];
    boolean qualified =
        prefix.length() <= 253
            && PREFIX.matcher(prefix).matches()
            && name.length() <= 63
            && NAME.matcher(name).matches();
    boolean denied =
        (prefix.equals("kubernetes.io") || prefix.endsWith(".kubernetes.io"))
            && !prefix.equals("feature.node.kubernetes.io")
            && !prefix.endsWith(".feature.node.kubernetes.io")
            && !prefix.equals("profile.node.kubernetes.io")
            && !prefix.endsWith(".profile.node.kubernetes.io");
    return qualified && !denied && value.length() <= 63 && VALUE.matcher(value).matches();
  }
}
