package org.lprff.cli.output;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code lprff --version}: the project version (filtered into a resource by the build), Java's. */
public final class Version implements IVersionProvider {

  /** The project version, or "unknown" outside a built jar or class path. */
  public static String projectVersion() {
    try (InputStream in = Version.class.getResourceAsStream("/org/lprff/cli/version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "lprff " + projectVersion(),
      "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
