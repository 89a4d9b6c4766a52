package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * There is no container engine to build the image, so the promises the Dockerfile makes are read
 * off it: .ci/run lints its syntax, this checks what it does. The runtime it copies is made by the
 * same script ReleaseIT.TheInstalledRuntime starts.
 */
class DockerfileTest {
  private static List<String> instructions() throws Exception {
    List<String> joined = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(Path.of("Dockerfile"))) {
      if (line.isBlank() || line.stripLeading().startsWith("#")) {
        continue;
      }
      String part = line.strip();
      if (part.endsWith("\\")) {
        current.append(part, 0, part.length() - 1).append(' ');
      } else {
        joined.add(current.append(part).toString());
        current.setLength(0);
      }
    }
    return joined;
  }

  private static List<String> finalStage() throws Exception {
    List<String> all = instructions();
    int lastFrom = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).startsWith("FROM ")) {
        lastFrom = i;
      }
    }
    return all.subList(lastFrom, all.size());
  }

  @Test
  void theBuildStageMakesTheRuntimeWithTheTestedScript() throws Exception {
    assertThat(instructions())
        .anySatisfy(
            i ->
                assertThat(i)
                    .startsWith("RUN ./mvnw")
                    .contains("deploy/image/build-runtime.sh target/acceld.jar /opt/acceld"));
  }

  @Test
  void theImageIsGlibcBasedAndStartsTheAgentThroughTheLauncherAsNonRoot() throws Exception {
    List<String> stage = finalStage();
    assertThat(instructions())
        .filteredOn(i -> i.startsWith("ARG DEBIAN_IMAGE="))
        .singleElement()
        .asString()
        .contains("debian:")
        .doesNotContain("alpine");
    assertThat(stage).contains("COPY --from=build /opt/acceld /opt/acceld");
    assertThat(stage).contains("ENTRYPOINT [\"/opt/acceld/bin/acceld\"]");
    assertThat(stage)
        .filteredOn(i -> i.startsWith("USER "))
        .singleElement()
        .asString()
        .doesNotContain("root")
        .doesNotContain(" 0");
    assertThat(stage).contains("EXPOSE 9445");
  }

  @Test
  void theImageIsStampedWithTheRevisionItIsGivenSinceTheContextHasNoGit() throws Exception {
    assertThat(Files.readAllLines(Path.of(".dockerignore"))).contains(".git/");
    List<String> all = instructions();
    assertThat(all).contains("COPY src/build/ src/build/", "ARG ACCELD_REVISION=");
    assertThat(all)
        .anySatisfy(
            i ->
                assertThat(i)
                    .startsWith("RUN ./mvnw")
                    .contains("-Dacceld.revision=\"${ACCELD_REVISION}\""));
  }

  @Test
  void theImageLinksTheBashCompletionWhereBashCompletionLooks() throws Exception {
    assertThat(finalStage())
        .filteredOn(i -> i.startsWith("RUN "))
        .anySatisfy(
            i ->
                assertThat(i.replaceAll("\\s+", " "))
                    .contains(
                        "ln -s /opt/acceld/share/bash-completion/completions/acceld"
                            + " /usr/share/bash-completion/completions/acceld"));
    assertThat(Files.readString(RuntimeImage.SCRIPT))
        .contains("\"$prefix/bin/acceld\" completion bash >\"$completion\"");
  }
}
