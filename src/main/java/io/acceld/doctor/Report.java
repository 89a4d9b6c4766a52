package io.acceld.doctor;

import io.acceld.util.JsonTrees;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one {@code acceld doctor} run found, in the order it was checked, as text (one line
 * per finding) or as the JSON document {@code docs/doctor.md} describes.
 */
public record Report(List<Finding> findings) {
  /** The JSON document's {@code format}; raised only when a key changes meaning or goes away. */
  public static final int FORMAT = 1;

  public Report {
    findings = List.copyOf(findings);
  }

  /** True when nothing failed (skips are not failures). */
  public boolean ok() {
    return findings.stream().noneMatch(f -> f.status() == Status.FAIL);
  }

  public long count(Status status) {
    return findings.stream().filter(f -> f.status() == status).count();
  }

  /**
   * One line per finding: {@code ✓ subject: found}, and {@code ✗ subject: found — fix: fix}. A
   * control character that reached a sentence is escaped here too, so no finding spans lines.
   */
  public String text() {
    StringBuilder out = new StringBuilder();
    for (Finding f : findings) {
      out.append(f.status().mark())
          .append(' ')
          .append(oneLine(f.subject()))
          .append(": ")
          .append(oneLine(f.found()));
      f.fix().ifPresent(fix -> out.append(" — fix: ").append(oneLine(fix)));
      out.append('\n');
    }
    return out.toString();
  }

  /** The JSON document, indented, with a final newline. */
  public String json() {
    Map<String, Object> counts = new LinkedHashMap<>();
    for (Status s : Status.values()) {
      counts.put(s.word(), count(s));
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("format", FORMAT);
    root.put("ok", ok());
    root.put("counts", counts);
    root.put("findings", findings.stream().map(Report::node).toList());
    return new String(JsonTrees.render(root, true), StandardCharsets.UTF_8) + "\n";
  }

  private static Object node(Finding f) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("check", f.check());
    n.put("subject", f.subject());
    n.put("status", f.status().word());
    n.put("found", f.found());
    n.put("fix", f.fix().orElse(null));
    n.put("facts", f.facts());
    return n;
  }

  private static String oneLine(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
