package io.acceld.util;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build is, stamped into {@code acceld-version.properties} at build time; {@code unknown}
 * for what the resource does not carry (a build from an IDE).
 */
public record BuildInfo(String version) {
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
    return new BuildInfo(p.getProperty("version", "unknown"));
  }
}
