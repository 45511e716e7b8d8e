package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lprff.cli.output.Version;

/** --help on every command, --version. */
class HelpTest {

  @Test
  void topLevelHelpListsTheCommands() {
    Cli.Result result = Cli.ok("--help");
    assertTrue(result.out().startsWith("Usage: lprff [-hV] [--debug] [COMMAND]"), result.out());
    assertTrue(result.out().contains("featurize"), result.out());
    assertTrue(result.out().contains("info"), result.out());
    assertEquals("", result.err());
  }

  @Test
  void featurizeHelpListsEveryOption() {
    String help = Cli.ok("featurize", "--help").out();
    for (String option : List.of("--input", "--format", "--idx-labels", "--label-column",
        "--label-type", "--standardize", "--kernel", "--sigma", "--nu", "--length-scale",
        "--features", "--bits", "--projection", "--seed", "--quantizer", "--like", "--output",
        "--ipc", "--batch-size", "--threads", "--row-ids", "--quiet", "--debug")) {
      assertTrue(help.contains(option), option + " missing from\n" + help);
    }
  }

  @Test
  void infoHelp() {
    String help = Cli.ok("info", "--help").out();
    assertTrue(help.startsWith("Usage: lprff info"), help);
    assertTrue(help.contains("--json"), help);
  }

  @Test
  void version() {
    String out = Cli.ok("--version").out();
    assertTrue(out.startsWith("lprff " + Version.projectVersion() + System.lineSeparator()), out);
    assertTrue(out.contains("Java " + Runtime.version()), out);
    assertTrue(!Version.projectVersion().equals("unknown"), "the build filters the version in");
  }
}
