package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.lprff.cli.output.Version;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

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

  /**
   * lprff --help lists each command in one line, as git and cargo do: the command's header (its
   * one-line summary); lprff CMD --help starts with the usage and keeps the full description.
   */
  @Test
  void topLevelHelpListsEachCommandInOneLineAndEachCommandKeepsItsDescription() {
    String help = Cli.ok("--help").out();
    List<String> lines = help.lines().toList();
    int start = lines.indexOf("Commands:");
    assertTrue(start > 0, help);
    Map<String, CommandLine> commands = Main.commandLine().getSubcommands();
    List<String> listed = lines.subList(start + 1, start + 1 + commands.size());
    assertEquals("", lines.get(start + 1 + commands.size()), "one line per command:\n" + help);
    int row = 0;
    for (Map.Entry<String, CommandLine> command : commands.entrySet()) {
      String name = command.getKey();
      UsageMessageSpec usage = command.getValue().getCommandSpec().usageMessage();
      assertEquals(1, usage.header().length, name + " needs a one-line header");
      String line = listed.get(row++);
      assertTrue(line.matches("  " + Pattern.quote(name) + " +" + Pattern.quote(usage.header()[0])),
          "'" + line + "' is not " + name + "'s one line in\n" + help);

      String own = Cli.ok(name, "--help").out();
      assertTrue(own.startsWith("Usage: lprff " + name + " "), own);
      String flat = own.replaceAll("\\s+", ""); // picocli wraps at spaces and after commas
      for (String paragraph : usage.description()) {
        assertTrue(flat.contains(paragraph.replaceAll("\\s+", "")),
            name + " --help lost \"" + paragraph + "\":\n" + own);
      }
    }
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
