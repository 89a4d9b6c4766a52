package io.acceld.util;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;

/**
 * What this build is: its version, the git revision it was built from and when. {@code
 * src/build/build-info.sh} writes them into {@code acceld-version.properties} at build time; a
 * value the resource does not carry (a build from an IDE, or from a tree without .git) is {@code
 * unknown}, never a guess.
 *
 * @param version the Maven project version, such as {@code 0.1.0}
 * @param revision the abbreviated git commit, {@code -dirty} when built with uncommitted changes
 * @param buildDate when the jar was built, ISO-8601 UTC
 */
public record BuildInfo(String version, String revision, String buildDate) {
  public static final String UNKNOWN = "unknown";
  private static final String RESOURCE = "/acceld-version.properties";

  public static BuildInfo current() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return new BuildInfo(value(p, "version"), value(p, "revision"), value(p, "buildDate"));
  }

  private static String value(Properties p, String key) {
    String v = p.getProperty(key, "").strip();
    return v.isEmpty() ? UNKNOWN : v;
  }

  /** The Java runtime running the agent, such as {@code 17.0.13+11-Debian-2}. */
  public static String javaVersion() {
    return Runtime.version().toString();
  }

  /** {@code 0.1.0 (revision 51464bb1c2d3)}: the version with what it was built from, for logs. */
  public String versionAndRevision() {
    return version + " (revision " + revision + ")";
  }

  /** What {@code acceld --version} prints, one fact a line. */
  public List<String> describe() {
    return List.of(
        "acceld " + version,
        "revision: " + revision,
        "built: " + buildDate,
        "java: " + javaVersion() + " (" + System.getProperty("java.vm.name", UNKNOWN) + ")");
  }
}
