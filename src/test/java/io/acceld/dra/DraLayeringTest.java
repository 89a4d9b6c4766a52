package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The three publishers share the ledger and neutral packages, never each other: dra/ imports
 * neither kubelet/ nor mesos/, and neither imports dra/.
 */
class DraLayeringTest {
  private static final Path SOURCES = Path.of("src/main/java/io/acceld");

  @Test
  void draAndTheOtherPublishersDoNotImportEachOther() throws IOException {
    assertThat(
            imports("dra", Pattern.compile("^import (static )?io\\.acceld\\.(kubelet|mesos)\\.")))
        .isEmpty();
    assertThat(imports("kubelet", Pattern.compile("^import (static )?io\\.acceld\\.dra\\.")))
        .isEmpty();
    assertThat(imports("mesos", Pattern.compile("^import (static )?io\\.acceld\\.dra\\.")))
        .isEmpty();
  }

  private static List<String> imports(String pkg, Pattern forbidden) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SOURCES.resolve(pkg))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        for (String line : Files.readAllLines(f)) {
          if (forbidden.matcher(line).find()) {
            found.add(f + ": " + line);
          }
        }
      }
    }
    return found;
  }
}
