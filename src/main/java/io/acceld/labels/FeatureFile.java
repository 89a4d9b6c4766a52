package io.acceld.labels;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Labels in Node Feature Discovery's feature-file format: a comment line, then one {@code
 * key=value} line per label, in order. No {@code # +expiry-time} directive: the labels hold until
 * the agent rewrites the file, as GPU Feature Discovery's do.
 *
 * <p>NFD skips a file over {@value #MAX_BYTES} bytes whole, so the rendering stops before the label
 * that would cross the limit and names what it left out; the labels come first-things-first ({@link
 * NodeLabels}), so what is cut is the least needed.
 */
public final class FeatureFile {
  /** NFD's limit on one feature file. */
  public static final int MAX_BYTES = 65536;

  static final String HEADER =
      "# Node labels written by acceld (--node-labels-file); rewritten when the hardware changes.\n";

  /**
   * A rendered file.
   *
   * @param content the file's bytes, at most {@value #MAX_BYTES}
   * @param dropped the keys left out to stay under the limit, in order
   */
  public record Rendered(byte[] content, List<String> dropped) {
    public Rendered {
      Objects.requireNonNull(content, "content");
      dropped = List.copyOf(dropped);
    }
  }

  private FeatureFile() {}

  public static Rendered render(LabelSet labels) {
    return render(labels, MAX_BYTES);
  }

  static Rendered render(LabelSet labels, int maxBytes) {
    StringBuilder text = new StringBuilder(HEADER);
    int bytes = HEADER.length();
    List<String> dropped = new ArrayList<>();
    for (Map.Entry<String, String> label : labels.labels().entrySet()) {
      // Valid labels are ASCII: one byte per character.
      String line = label.getKey() + "=" + label.getValue() + "\n";
      if (!dropped.isEmpty() || bytes + line.length() > maxBytes) {
        dropped.add(label.getKey());
        continue;
      }
      text.append(line);
      bytes += line.length();
    }
    return new Rendered(text.toString().getBytes(StandardCharsets.US_ASCII), dropped);
  }
}
