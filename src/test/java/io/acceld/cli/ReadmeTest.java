package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README is where an operator starts: its commands work as written and it leads to the two
 * references, which their own tests keep exact (ConfigurationReferenceTest, MetricsReferenceIT).
 */
class ReadmeTest {
  @Test
  void theReadmeLeadsToBothReferencesAndItsCommandsAreTheTestedOnes() throws Exception {
    String readme = Files.readString(Path.of("README.md"));

    assertThat(readme)
        .contains("(docs/configuration.md)", "(docs/metrics.md)")
        .contains("./mvnw -B verify")
        .contains("java -jar target/acceld.jar devices --simulate");
    assertThat(Path.of("docs/configuration.md")).isRegularFile();
    assertThat(Path.of("docs/metrics.md")).isRegularFile();
  }
}
