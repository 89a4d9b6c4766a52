package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.Setting;
import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README is the operator's reference: every setting must be in its table. */
class ReadmeTest {
  @Test
  void everySettingIsDocumentedWithItsEnvVar() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    for (Setting<?> s : Settings.ALL) {
      assertThat(readme).as(s.key()).contains("`" + s.flag()).contains("`" + s.envVar() + "`");
    }
    assertThat(readme)
        .contains("./mvnw -B verify")
        .contains("java -jar target/acceld.jar devices --simulate");
  }
}
