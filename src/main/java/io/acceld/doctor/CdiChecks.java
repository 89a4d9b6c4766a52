package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.util.JsonSyntaxException;
import io.acceld.util.JsonTrees;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CDI, when the agent writes specs ({@code --cdi}): the directory can be written (or made) and
 * every spec of ours there holds to the CDI schema and to what runtimes check when they load it.
 */
final class CdiChecks {
  static final String CHECK = "cdi";

  /** Far more than a spec of 256 GPUs: a bigger file is not ours to parse. */
  private static final int MAX_SPEC_BYTES = 8 << 20;

  private CdiChecks() {}

  static List<Finding> of(AgentConfig config) {
    if (!config.get(Settings.CDI)) {
      return List.of(Finding.skip(CHECK, "cdi", "off (--cdi false): the agent writes no spec"));
    }
    Path dir = config.get(Settings.CDI_DIR);
    List<Finding> findings = new ArrayList<>();
    findings.add(
        Writable.check(
            CHECK,
            "cdi dir",
            dir,
            "the agent writes its specs there and the container runtime reads them: make it"
                + " writable for the agent (root), or mount it read-write into its container, or"
                + " set --cdi-dir to the directory the runtime reads (/var/run/cdi by default)"));
    if (!Files.isDirectory(dir)) {
      return findings;
    }
    List<Path> specs = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "acceld-*.json")) {
      entries.forEach(specs::add);
    } catch (IOException e) {
      findings.add(
          Finding.fail(
              CHECK,
              "cdi specs",
              dir + " cannot be listed: " + e.getMessage(),
              "make it readable for root"));
      return findings;
    }
    specs.sort(null);
    if (specs.isEmpty()) {
      findings.add(
          Finding.pass(
              CHECK,
              "cdi specs",
              "none of acceld's in " + dir + " yet: the agent writes them as it starts"));
    }
    for (Path spec : specs) {
      findings.add(spec(spec));
    }
    return findings;
  }

  private static Finding spec(Path file) {
    String subject = "cdi spec " + file.getFileName();
    String fix =
        "delete it: the agent writes it again as it starts and within --cdi-check-interval"
            + " (30s by default) while it runs; if the new one fails too, that is a bug to report";
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_SPEC_BYTES + 1);
    } catch (IOException e) {
      return Finding.fail(CHECK, subject, file + " cannot be read: " + e.getMessage(), fix);
    }
    if (bytes.length > MAX_SPEC_BYTES) {
      return Finding.fail(CHECK, subject, file + " is larger than any spec of ours", fix);
    }
    Object spec;
    try {
      spec = JsonTrees.parse(bytes);
    } catch (JsonSyntaxException e) {
      return Finding.fail(CHECK, subject, file + " is not JSON: " + e.getMessage(), fix);
    }
    List<String> violations = new ArrayList<>(CdiSchema.violations(spec));
    violations.addAll(CdiSchema.runtimeViolations(spec));
    if (!violations.isEmpty()) {
      return Finding.fail(
          CHECK, subject, file + " breaks the CDI schema: " + String.join("; ", violations), fix);
    }
    int devices = ((List<?>) ((java.util.Map<?, ?>) spec).get("devices")).size();
    return Finding.pass(
        CHECK,
        subject,
        file + " is a valid CDI spec with " + devices + " device" + (devices == 1 ? "" : "s"));
  }
}
