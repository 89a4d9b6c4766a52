package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/metrics.md is the operator's reference to /metrics: a fully populated agent's scrape must
 * export exactly the families it lists, each with the type and labels it says. A family added in
 * code and not documented, or documented and gone, fails here.
 */
class MetricsReferenceIT {
  private static final Path REFERENCE = Path.of("docs/metrics.md");
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\|(.*)\\|$");
  private static final String GPU_LABELS = "GPU labels";

  /** One documented family: its labels on every series, and those on only some. */
  record Documented(String name, String type, String unit, Set<String> always, Set<String> some) {}

  /** One exported family: its type, and every label set its series carry. */
  record Exported(String type, List<Set<String>> labelSets) {}

  @TempDir static Path dir;
  private static Map<String, Exported> exported;
  private static Map<String, Documented> documented;

  @BeforeAll
  static void scrapeAndRead() throws Exception {
    // dcgm-exporter's label names: the mode that serves every family (the PCIe replay counter)
    try (PopulatedAgent agent = new PopulatedAgent(dir, DcgmCollector.LabelNames.DCGM_EXPORTER)) {
      exported = families(agent.scrape());
    }
    documented = reference(Files.readString(REFERENCE));
  }

  @Test
  void everyExportedFamilyIsDocumented() {
    Set<String> undocumented = new TreeSet<>();
    for (String family : exported.keySet()) {
      if (!documented.containsKey(family) && wildcardFor(family) == null) {
        undocumented.add(family);
      }
    }
    assertThat(undocumented).as("exported but missing from " + REFERENCE).isEmpty();
  }

  @Test
  void everyDocumentedFamilyIsExported() {
    Set<String> gone = new TreeSet<>();
    for (String name : documented.keySet()) {
      boolean found =
          name.endsWith("*")
              ? exported.keySet().stream()
                  .anyMatch(f -> f.startsWith(name.substring(0, name.length() - 1)))
              : exported.containsKey(name);
      if (!found) {
        gone.add(name);
      }
    }
    assertThat(gone).as("in " + REFERENCE + " but not exported").isEmpty();
  }

  @Test
  void typesAndLabelsAreAsDocumented() {
    Map<String, String> wrong = new TreeMap<>();
    exported.forEach(
        (family, e) -> {
          Documented d = documented.get(family);
          if (d == null) {
            return; // a wildcard row, or reported by everyExportedFamilyIsDocumented
          }
          if (!d.type().equals(e.type())) {
            wrong.put(family, "type " + e.type() + ", documented " + d.type());
          }
          Set<String> all = new TreeSet<>();
          e.labelSets().forEach(all::addAll);
          Set<String> documentedAll = new TreeSet<>(d.always());
          documentedAll.addAll(d.some());
          if (!all.equals(documentedAll)) {
            wrong.put(family, "labels " + all + ", documented " + documentedAll);
          }
          for (Set<String> labels : e.labelSets()) {
            if (!labels.containsAll(d.always())) {
              wrong.put(family, "a series has only " + labels + ", documented " + d.always());
            }
          }
        });
    assertThat(wrong).as("differs from " + REFERENCE).isEmpty();
  }

  @Test
  void everyRowSaysItsUnit() {
    assertThat(documented.values()).allSatisfy(d -> assertThat(d.unit()).as(d.name()).isNotBlank());
  }

  private static String wildcardFor(String family) {
    return documented.keySet().stream()
        .filter(n -> n.endsWith("*") && family.startsWith(n.substring(0, n.length() - 1)))
        .findFirst()
        .orElse(null);
  }

  /** The families of a text scrape by their {@code # TYPE} name. */
  static Map<String, Exported> families(String scrape) {
    Map<String, String> types = new LinkedHashMap<>();
    for (String line : scrape.lines().toList()) {
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        types.put(parts[2], parts[3]);
      }
    }
    Map<String, List<Set<String>>> labels = new LinkedHashMap<>();
    types.keySet().forEach(f -> labels.put(f, new ArrayList<>()));
    for (Exposition.Sample s : Exposition.parse(scrape).samples()) {
      String family = familyOf(s.name(), types);
      Set<String> names = new TreeSet<>(s.labels().keySet());
      names.removeAll(Set.of("le", "quantile"));
      // the reference documents the default spelling; the scrape used dcgm-exporter's
      if (names.remove("modelName")) {
        names.add("model_name");
      }
      labels.get(family).add(names);
    }
    Map<String, Exported> families = new TreeMap<>();
    types.forEach((f, t) -> families.put(f, new Exported(t, labels.get(f))));
    return families;
  }

  private static String familyOf(String sample, Map<String, String> types) {
    if (types.containsKey(sample)) {
      return sample;
    }
    for (String suffix : List.of("_bucket", "_sum", "_count")) {
      if (sample.endsWith(suffix)) {
        String base = sample.substring(0, sample.length() - suffix.length());
        if (types.containsKey(base)) {
          return base;
        }
      }
    }
    throw new AssertionError("sample " + sample + " has no # TYPE line");
  }

  /** The table rows of the reference: {@code | `name` | type | unit | labels | meaning |}. */
  static Map<String, Documented> reference(String markdown) {
    String gpuLabels =
        markdown
            .lines()
            .filter(l -> l.startsWith(GPU_LABELS + " = "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(REFERENCE + " lacks 'GPU labels = ...'"))
            .substring(GPU_LABELS.length() + 3);
    Map<String, Documented> rows = new LinkedHashMap<>();
    for (String line : markdown.lines().toList()) {
      Matcher m = ROW.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String[] cells = m.group(2).split("\\|", -1);
      assertThat(cells).as(line).hasSizeGreaterThanOrEqualTo(4);
      String labelCell = cells[2].strip().equals(GPU_LABELS) ? gpuLabels : cells[2];
      Set<String> always = new LinkedHashSet<>();
      Set<String> some = new LinkedHashSet<>();
      labelNames(labelCell, always, some);
      Documented d = new Documented(m.group(1), cells[0].strip(), cells[1].strip(), always, some);
      assertThat(rows.put(d.name(), d)).as("%s listed twice", d.name()).isNull();
    }
    return rows;
  }

  /** {@code `a`, `b`, [`c`, `d`]}: a and b on every series, c and d on some. */
  private static void labelNames(String cell, Set<String> always, Set<String> some) {
    if (cell.strip().equals("various")) {
      return;
    }
    int bracket = cell.indexOf('[');
    String required = bracket < 0 ? cell : cell.substring(0, bracket);
    String optional = bracket < 0 ? "" : cell.substring(bracket);
    Matcher names = Pattern.compile("`([^`]+)`").matcher(required);
    while (names.find()) {
      always.add(names.group(1));
    }
    names = Pattern.compile("`([^`]+)`").matcher(optional);
    while (names.find()) {
      some.add(names.group(1));
    }
  }
}
