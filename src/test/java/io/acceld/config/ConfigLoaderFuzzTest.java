package io.acceld.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.acceld.testing.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random config files, flags and environment variables for the loader: every setting's key with
 * values of every shape (scalars of the wrong kind, lists, maps, anchors, aliases, tags, odd
 * unicode), unknown keys, random {@code rules:} and {@code resources:} entries and garbage lines.
 * Each input must load or be refused with a {@link ConfigException} that names where the problem
 * is; nothing else may escape, and no input may take long. Seeded.
 */
class ConfigLoaderFuzzTest {
  private static final long SEED = 0x79616d6cL;
  private static final List<String> KEYS = Settings.ALL.stream().map(Setting::key).toList();
  private static final String[] VALUES = {
    "5s",
    "0s",
    "-1s",
    "1.5m",
    "10",
    "-3",
    "0x10",
    "true",
    "yes",
    "off",
    "~",
    "null",
    "''",
    "\"\"",
    "/tmp/x",
    "relative/path",
    "127.0.0.1:0",
    "[::1]:99999",
    ":80",
    "host:-1",
    "[1, 2]",
    "[]",
    "{}",
    "{a: b}",
    "- a",
    "&anchor 3",
    "*anchor",
    "!!binary aGVsbG8=",
    "!!str 3",
    "!!int x",
    "\"\\u00e9\\t\"",
    "'it''s'",
    "\u00ff\u00fe",
    "nvidia.com/gpu",
    "79,48",
    "basic:/nonexistent",
    "bearer:",
    "cpus:1;mem:x",
    "uuid:GPU-1",
    "x".repeat(300)
  };

  /** Values the issue lists as defects 8 (config/ fixes on another branch): kept out for now. */
  private static final String[] KNOWN_DEFECT_VALUES = {
    "999999999999999999h", "\"\\u0000\"", "\"a\\nb\""
  };

  @TempDir Path dir;

  @Test
  void randomConfigFilesLoadOrAreRefusedNamingWhere() throws Exception {
    Random random = new Random(SEED);
    Path file = dir.resolve("acceld.yaml");
    assertTimeoutPreemptively(
        Waits.scaled(Duration.ofSeconds(30)),
        () -> {
          for (int i = 0; i < 1_500; i++) {
            String yaml = document(random, VALUES);
            Files.writeString(file, yaml);
            assertLoadsOrRefuses(Map.of(), Map.of(), Optional.of(file), i, yaml);
          }
        });
  }

  @Test
  void randomFlagsAndEnvironmentLoadOrAreRefusedNamingTheSetting() {
    Random random = new Random(SEED + 1);
    assertTimeoutPreemptively(
        Waits.scaled(Duration.ofSeconds(30)),
        () -> {
          for (int i = 0; i < 1_500; i++) {
            Setting<?> setting = Settings.ALL.get(random.nextInt(Settings.ALL.size()));
            String value = VALUES[random.nextInt(VALUES.length)];
            Map<String, String> flags = Map.of(setting.key(), value);
            Map<String, String> env = Map.of(setting.envVar(), value);
            assertLoadsOrRefuses(
                random.nextBoolean() ? flags : Map.of(),
                random.nextBoolean() ? env : Map.of(),
                Optional.empty(),
                i,
                setting.key() + "=" + value);
          }
        });
  }

  @Test
  void knownHostileValuesAreRefusedNamingTheSetting() throws Exception {
    Random random = new Random(SEED + 2);
    Path file = dir.resolve("acceld.yaml");
    assertTimeoutPreemptively(
        Waits.scaled(Duration.ofSeconds(30)),
        () -> {
          for (int i = 0; i < 300; i++) {
            String yaml = document(random, KNOWN_DEFECT_VALUES);
            Files.writeString(file, yaml);
            assertLoadsOrRefuses(Map.of(), Map.of(), Optional.of(file), i, yaml);
          }
          Files.write(
              file,
              new byte[] {
                'l', 'o', 'g', '-', 'l', 'e', 'v', 'e', 'l', ':', ' ', (byte) 0xc3, 0x28
              });
          assertLoadsOrRefuses(Map.of(), Map.of(), Optional.of(file), -1, "non-UTF-8");
          Files.writeString(file, "nvml-library: " + "x".repeat(10 << 20) + "\n");
          assertLoadsOrRefuses(Map.of(), Map.of(), Optional.of(file), -2, "10 MB");
        });
  }

  /**
   * The oracle: loads, or a {@link ConfigException} naming one of {@code where} (the file, the flag
   * or the environment variable).
   */
  private static void assertLoadsOrRefuses(
      Map<String, String> flags,
      Map<String, String> env,
      Optional<Path> file,
      int caseNumber,
      String input) {
    List<String> where = new java.util.ArrayList<>();
    file.ifPresent(f -> where.add(f.getFileName().toString()));
    flags.keySet().forEach(key -> where.add("--" + key));
    where.addAll(env.keySet());
    try {
      ConfigLoader.load(flags, env, file);
    } catch (ConfigException e) {
      assertThat(e.getMessage())
          .as("case %d: %s", caseNumber, input)
          .isNotBlank()
          .satisfies(
              message ->
                  assertThat(where.stream().anyMatch(message::contains))
                      .as("names one of %s: %s", where, message)
                      .isTrue());
    } catch (RuntimeException | Error e) {
      throw new AssertionError("case " + caseNumber + " escaped the loader: " + input, e);
    }
  }

  /** A YAML document of a few random top-level entries. */
  private static String document(Random random, String[] values) {
    StringBuilder yaml = new StringBuilder();
    for (int n = random.nextInt(5); n >= 0; n--) {
      switch (random.nextInt(10)) {
        case 0 ->
            yaml.append("rules:\n  - vendor: ")
                .append(pick(random, values))
                .append("\n    resource: ")
                .append(pick(random, values))
                .append('\n');
        case 1 ->
            yaml.append("resources:\n  ")
                .append(random.nextBoolean() ? "nvidia.com/gpu" : pick(random, values))
                .append(":\n    ")
                .append(random.nextBoolean() ? "replicas" : "colour")
                .append(": ")
                .append(pick(random, values))
                .append('\n');
        case 2 -> {
          byte[] garbage = new byte[random.nextInt(40)];
          for (int b = 0; b < garbage.length; b++) {
            garbage[b] = (byte) (0x20 + random.nextInt(0x5f));
          }
          yaml.append(new String(garbage, StandardCharsets.US_ASCII)).append('\n');
        }
        case 3 -> yaml.append("unknown-").append(random.nextInt(9)).append(": 1\n");
        default ->
            yaml.append(KEYS.get(random.nextInt(KEYS.size())))
                .append(": ")
                .append(pick(random, values))
                .append('\n');
      }
    }
    return yaml.toString();
  }

  private static String pick(Random random, String[] from) {
    return from[random.nextInt(from.length)];
  }
}
