package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.lprff.cli.options.BatchOption;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options several commands take are declared once, in the mixins of {@code options}: on
 * picocli's model of the command line, every command's option of a name comes from one field,
 * except the names listed here, whose options differ in meaning from command to command.
 */
class SharedOptionsTest {

  /** Option names declared separately on purpose: the commands mean different things by them. */
  static final Set<String> DIFFERENT = Set.of(
      "--train", "--heldout", // train: feature files, both required; compare: raw rows
      "--validation", // train: a feature file; fit: raw rows
      "--task", // train: required; compare: regression by default; experiment: the data's
      "--l2", // train: a list chosen among; compare: one value > 0, also the kernel metrics' λ
      "--classes", // train: K >= 2 or from the labels; memory: the model's outputs, 1 by default
      "--features", "--bits", "--projection", // one value, a list (compare) or memory's size
      "--sigma", // demo: a number with a default; elsewhere required for its kernels
      "--input", // featurize and predict: the rows; fit: labelled rows; demo: diamonds.csv
      "--output", // featurize: a feature file; predict: a CSV
      "--model", // train: the file written (-o); evaluate and predict: the file read (-m)
      "--rows", // featurize: FROM:TO; compare: the kernel subsample's size
      "--standardize", // featurize: off by default; compare: on; experiment: the data's
      "--format", "--label-column", "--idx-labels", // compare's, experiment's: two files
      "--data", // evaluate: a feature file; experiment: a data set's name or raw rows
      "--json", // demo prints an object per configuration
      "--seed"); // featurize: the map's seed (0, or the --like file's); else every draw (1)

  @Test
  void anOptionOfSeveralCommandsIsOneDeclaration() {
    Map<String, Map<Object, List<String>>> declarations = new TreeMap<>();
    for (CommandLine sub : Main.commandLine().getSubcommands().values()) {
      for (OptionSpec option : sub.getCommandSpec().options()) {
        declarations.computeIfAbsent(option.longestName(), k -> new LinkedHashMap<>())
            .computeIfAbsent(option.userObject(), k -> new ArrayList<>())
            .add(sub.getCommandName());
      }
    }
    List<String> copies = new ArrayList<>();
    declarations.forEach((name, fields) -> {
      if (fields.size() > 1 && !DIFFERENT.contains(name)) {
        copies.add(name + " " + fields.values());
      }
    });
    assertEquals(List.of(), copies, "options declared again instead of in a mixin");
    for (String name : DIFFERENT) {
      assertTrue(declarations.get(name).size() > 1, name + " is one declaration: not DIFFERENT");
    }
    // The mixins are in use: the training options of train, demo and compare are one field each.
    for (String name : List.of("--solver", "--epochs")) {
      Map<Object, List<String>> fields = declarations.get(name);
      assertEquals(1, fields.size(), name + " " + fields);
      assertEquals(List.of("train", "demo", "compare"), fields.values().iterator().next(), name);
    }
    // compare and experiment read raw rows alike.
    assertEquals(List.of(List.of("compare", "experiment")),
        List.copyOf(declarations.get("--heldout-idx-labels").values()));
    assertEquals(Set.of(List.of("train", "compare", "memory")),
        Set.copyOf(declarations.get("--batch").values()));
  }

  /** One default each, except the solver (and compare's rate), which the commands choose. */
  @Test
  void theSharedOptionsKeepEachCommandsDefaults() {
    Map<String, CommandLine> commands = Main.commandLine().getSubcommands();
    for (String command : List.of("train", "demo", "compare")) {
      CommandSpec spec = commands.get(command).getCommandSpec();
      assertEquals("100", spec.findOption("--epochs").defaultValueString(), command);
      assertEquals("1", spec.findOption("--seed").defaultValueString(), command);
    }
    for (String command : List.of("train", "compare", "memory")) {
      assertEquals(Integer.toString(BatchOption.DEFAULT),
          commands.get(command).getCommandSpec().findOption("--batch").defaultValueString());
    }
    assertEquals("auto", defaultOf(commands, "train", "--solver"));
    assertEquals("closed-form", defaultOf(commands, "compare", "--solver"));
    assertEquals("auto", defaultOf(commands, "demo", "--solver"));
    assertEquals("null", defaultOf(commands, "train", "--lr")); // probed
    assertEquals("1.0", defaultOf(commands, "compare", "--lr"));
    // ... and shows them: ${DEFAULT-VALUE} reads the value the command gave the mixin.
    String help = Cli.ok("compare", "--help").out();
    assertTrue(help.replaceAll("\\s+", " ").contains("(default closed-form)"), help);
  }

  private static String defaultOf(Map<String, CommandLine> commands, String command,
      String option) {
    return commands.get(command).getCommandSpec().findOption(option).defaultValueString();
  }
}
