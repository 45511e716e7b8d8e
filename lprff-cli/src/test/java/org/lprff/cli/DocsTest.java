package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The README and the pages of {@code docs/} stay true to the code: the README stays a short front
 * door, its QuickStart is the example file, every local link reaches a file and a heading, and
 * every command line shown in a shell block parses with the real command line.
 */
class DocsTest {

  /** The repository root (Surefire runs in the module's folder). */
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Path README = ROOT.resolve("README.md");
  private static final Path QUICK_START = ROOT.resolve("docs/examples/QuickStart.java");
  private static final String QUICK_START_BEGIN = "<!-- begin docs/examples/QuickStart.java";
  private static final String QUICK_START_END = "<!-- end docs/examples/QuickStart.java";

  /**
   * {@code lprff bench} is not a subcommand of {@link LprffCommand}: the launcher runs it from
   * {@code jmh/target/benchmarks.jar} ({@code org.lprff.bench.report.BenchCommand}), a module
   * lprff-cli does not depend on. Its command lines are parsed by picocli against a model of its
   * options read from that class's source (names, and whether each takes a value).
   */
  private static final Path BENCH_SOURCE =
      ROOT.resolve("jmh/src/main/java/org/lprff/bench/report/BenchCommand.java");

  /**
   * Command lines with shell placeholders ({@code <...>}, {@code [...]}, {@code ...}, {@code $X})
   * cannot be parsed and are skipped; the documentation keeps such lines in prose, so there may be
   * only this many in code blocks.
   */
  private static final int MAX_SKIPPED = 3;

  @Test
  void readmeIsAFrontDoorOfAtMost250Lines() throws IOException {
    List<String> lines = Files.readAllLines(README, StandardCharsets.UTF_8);
    assertTrue(lines.size() <= 250, "README.md has " + lines.size() + " lines; at most 250: move"
        + " the detail to a page of docs/");
  }

  @Test
  void readmeQuickStartIsTheExampleFile() throws IOException {
    List<String> lines = Files.readAllLines(README, StandardCharsets.UTF_8);
    int begin = -1;
    int end = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(QUICK_START_BEGIN)) {
        begin = i;
      } else if (lines.get(i).startsWith(QUICK_START_END)) {
        end = i;
      }
    }
    assertTrue(begin >= 0 && end > begin,
        "README.md: the QuickStart block must sit between '" + QUICK_START_BEGIN + " ...' and '"
            + QUICK_START_END + " ...' lines");
    List<String> block = lines.subList(begin + 1, end);
    assertTrue(block.size() >= 2 && block.get(0).equals("```java")
            && block.get(block.size() - 1).equals("```"),
        "README.md:" + (begin + 2) + ": between the markers: one ```java block and nothing else");
    String readmeCode = String.join("\n", block.subList(1, block.size() - 1));
    String file = Files.readString(QUICK_START, StandardCharsets.UTF_8);
    assertEquals(withoutTrailingNewlines(file), withoutTrailingNewlines(readmeCode),
        "README.md:" + (begin + 3) + ": the QuickStart block differs from " + ROOT.relativize(
            QUICK_START) + "; copy the file into the block");
  }

  @Test
  void everyLocalLinkReachesAFileAndAHeading() throws IOException {
    List<String> failures = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    Pattern link = Pattern.compile("!?\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    for (Path file : documents()) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      boolean[] code = codeLines(lines);
      for (int i = 0; i < lines.size(); i++) {
        if (code[i]) {
          continue;
        }
        Matcher m = link.matcher(withoutCodeSpans(lines.get(i)));
        while (m.find()) {
          String target = m.group(2);
          if (target.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            continue; // http:, https:, mailto:
          }
          String where = ROOT.relativize(file) + ":" + (i + 1) + ": link " + target;
          int hash = target.indexOf('#');
          String pathPart = hash < 0 ? target : target.substring(0, hash);
          String anchor = hash < 0 ? null : percentDecoded(target.substring(hash + 1));
          Path resolved = pathPart.isEmpty()
              ? file : file.getParent().resolve(percentDecoded(pathPart)).normalize();
          if (!Files.exists(resolved)) {
            failures.add(where + ": no such file " + ROOT.relativize(resolved));
            continue;
          }
          if (anchor != null) {
            if (!resolved.toString().endsWith(".md")) {
              failures.add(where + ": an anchor into a file that is not markdown");
              continue;
            }
            Set<String> slugs = anchors.computeIfAbsent(resolved, DocsTest::headingSlugs);
            if (!slugs.contains(anchor)) {
              failures.add(where + ": no heading with the slug '" + anchor + "' in "
                  + ROOT.relativize(resolved));
            }
          }
        }
      }
    }
    assertEquals(List.of(), failures, "broken links:\n" + String.join("\n", failures));
  }

  @Test
  void everyCommandLineInAShellBlockParses() throws IOException {
    CommandSpec bench = benchSpec();
    List<String> failures = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    int parsed = 0;
    for (Path file : documents()) {
      for (CommandLineText command : commandLines(file)) {
        String where = ROOT.relativize(file) + ":" + command.line() + ": " + command.text();
        List<String> args = shellWords(command.text());
        if (args == null) {
          skipped.add(where);
          continue;
        }
        args = args.subList(1, args.size()); // the program: ./lprff or lprff
        try {
          if (!args.isEmpty() && args.get(0).equals("bench")) {
            new CommandLine(bench).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
          } else {
            Main.commandLine().parseArgs(args.toArray(String[]::new));
          }
          parsed++;
        } catch (ParameterException e) {
          failures.add(where + "\n    " + e.getMessage());
        }
      }
    }
    assertEquals(List.of(), failures,
        "command lines that do not parse:\n" + String.join("\n", failures));
    assertTrue(skipped.size() <= MAX_SKIPPED, "too many command lines with shell placeholders"
        + " (write them in prose, or with real values):\n" + String.join("\n", skipped));
    assertTrue(parsed >= 20, "only " + parsed + " command lines found: is the scan broken?");
  }

  @Test
  void everyCommandHasHelpAndTheReadmeListsEveryCommand() throws IOException {
    Set<String> commands = new TreeSet<>(Main.commandLine().getSubcommands().keySet());
    for (String command : commands) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), command,
          "--help");
      assertEquals(0, code, "lprff " + command + " --help\n" + err);
      assertTrue(out.toString().startsWith("Usage: lprff " + command), out.toString());
    }
    assertEquals(0, Cli.run("--help").exitCode());
    OptionSpec benchHelp = benchSpec().findOption("--help");
    assertTrue(benchHelp != null && benchHelp.usageHelp(), "lprff bench --help");

    Set<String> expected = new TreeSet<>(commands);
    expected.add("bench");
    Set<String> listed = new TreeSet<>();
    List<String> lines = Files.readAllLines(README, StandardCharsets.UTF_8);
    int table = lines.indexOf("| command | what it does |");
    assertTrue(table >= 0, "README.md: the command table ('| command | what it does |')");
    for (int i = table + 2; i < lines.size() && lines.get(i).startsWith("| `"); i++) {
      String cell = lines.get(i).substring(3);
      listed.add(cell.substring(0, cell.indexOf('`')));
    }
    assertEquals(expected, listed, "README.md:" + (table + 1) + ": the command table lists one"
        + " line per command of 'lprff --help', and bench");
  }

  // ---- the documents

  /** README.md and the pages directly in docs/. */
  private static List<Path> documents() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(README);
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    return files;
  }

  private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(`{3,}|~{3,})\\s*([^`\\s]*).*$");

  /** Which lines are inside fenced code blocks (the fences included). */
  private static boolean[] codeLines(List<String> lines) {
    boolean[] code = new boolean[lines.size()];
    String open = null;
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = FENCE.matcher(lines.get(i));
      if (open == null) {
        if (m.matches()) {
          open = m.group(1);
          code[i] = true;
        }
      } else {
        code[i] = true;
        if (m.matches() && m.group(1).charAt(0) == open.charAt(0)
            && m.group(1).length() >= open.length() && m.group(2).isEmpty()) {
          open = null;
        }
      }
    }
    return code;
  }

  private static String withoutCodeSpans(String line) {
    return line.replaceAll("(`+)(?:(?!\\1).)+?\\1", "");
  }

  private static String withoutTrailingNewlines(String text) {
    return text.replaceAll("\\n+$", "");
  }

  private static String percentDecoded(String text) {
    if (!text.contains("%")) {
      return text;
    }
    return java.net.URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

  /** GitHub's anchors of a markdown file's headings (github-slugger, with -1, -2 on repeats). */
  private static Set<String> headingSlugs(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    boolean[] code = codeLines(lines);
    Set<String> slugs = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = code[i] ? null : HEADING.matcher(lines.get(i));
      if (m == null || !m.matches()) {
        continue;
      }
      String base = slug(m.group(2));
      int n = seen.merge(base, 1, Integer::sum) - 1;
      slugs.add(n == 0 ? base : base + "-" + n);
    }
    return slugs;
  }

  /** A heading's text as GitHub renders it, lower-cased, punctuation dropped, spaces to '-'. */
  static String slug(String heading) {
    String text = heading
        .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // links and images: their text
        .replace("`", "")
        .replace("*", "")
        .toLowerCase(java.util.Locale.ROOT);
    StringBuilder slug = new StringBuilder();
    text.codePoints().forEach(c -> {
      int type = Character.getType(c);
      if (c == ' ') {
        slug.append('-');
      } else if (c == '-' || Character.isLetterOrDigit(c)
          || type == Character.CONNECTOR_PUNCTUATION || type == Character.NON_SPACING_MARK
          || type == Character.COMBINING_SPACING_MARK || type == Character.ENCLOSING_MARK
          || type == Character.LETTER_NUMBER || type == Character.OTHER_NUMBER) {
        slug.appendCodePoint(c);
      }
    });
    return slug.toString();
  }

  // ---- command lines in shell blocks

  /** A command line of a shell block: continuations joined, the line it starts on (1-based). */
  record CommandLineText(int line, String text) {}

  private static final Set<String> SHELL_BLOCKS = Set.of("bash", "sh", "console");
  private static final Pattern ASSIGNMENTS = Pattern.compile("^(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)+");

  /**
   * The lines of ```bash, ```sh and ```console blocks that run lprff: in bash and sh blocks every
   * line starting with {@code ./lprff} or {@code lprff} (after environment assignments such as
   * {@code LPRFF_PYTHON=... ./lprff bench}); in console blocks the prompts {@code $ ./lprff} and
   * {@code $ lprff}. Lines ending in a backslash continue on the next.
   */
  static List<CommandLineText> commandLines(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<CommandLineText> commands = new ArrayList<>();
    String open = null;
    String language = null;
    for (int i = 0; i < lines.size(); i++) {
      Matcher fence = FENCE.matcher(lines.get(i));
      if (open == null) {
        if (fence.matches()) {
          open = fence.group(1);
          language = fence.group(2);
        }
        continue;
      }
      if (fence.matches() && fence.group(1).charAt(0) == open.charAt(0)
          && fence.group(2).isEmpty()) {
        open = null;
        continue;
      }
      if (!SHELL_BLOCKS.contains(language)) {
        continue;
      }
      int start = i;
      StringBuilder text = new StringBuilder(lines.get(i).strip());
      while (text.toString().endsWith("\\") && i + 1 < lines.size()) {
        text.setLength(text.length() - 1);
        String next = lines.get(++i).strip();
        if (language.equals("console") && next.startsWith("> ")) {
          next = next.substring(2);
        }
        text.append(' ').append(next);
      }
      String command = text.toString();
      if (language.equals("console")) {
        if (!command.startsWith("$ ")) {
          continue;
        }
        command = command.substring(2).strip();
      }
      command = ASSIGNMENTS.matcher(command).replaceFirst("");
      if (command.matches("(\\./)?lprff(\\s.*)?")) {
        commands.add(new CommandLineText(start + 1, command));
      }
    }
    return commands;
  }

  /**
   * The words of one shell command, as bash would pass them: quotes and backslashes resolved,
   * ending at a comment, a pipe, a redirection or a list operator; null when the line holds a
   * placeholder a shell would not take literally ({@code <FILE>}, {@code [--option]}, {@code ...},
   * a {@code $} expansion).
   */
  static List<String> shellWords(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    int i = 0;
    int n = command.length();
    while (i < n) {
      char c = command.charAt(i);
      if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
        i++;
        continue;
      }
      if (word == null) {
        if (c == '#') {
          break; // a comment
        }
        if (c == '[' || command.startsWith("...", i)) {
          return null; // [--optional] or ...
        }
        if (c == '<' && command.indexOf('>', i) > i + 1) {
          return null; // <FILE>
        }
      }
      if ("|;&<>()".indexOf(c) >= 0) {
        break; // the command ends: a pipe, a list, a redirection
      }
      if (word == null) {
        word = new StringBuilder();
      }
      if (c == '$') {
        return null; // an expansion
      } else if (c == '\\' && i + 1 < n) {
        word.append(command.charAt(i + 1));
        i += 2;
      } else if (c == '\'') {
        int close = command.indexOf('\'', i + 1);
        if (close < 0) {
          return null;
        }
        word.append(command, i + 1, close);
        i = close + 1;
      } else if (c == '"') {
        int j = i + 1;
        while (j < n && command.charAt(j) != '"') {
          char d = command.charAt(j);
          if (d == '$' || d == '`') {
            return null;
          }
          if (d == '\\' && j + 1 < n && "\"\\$`".indexOf(command.charAt(j + 1)) >= 0) {
            j++;
            d = command.charAt(j);
          }
          word.append(d);
          j++;
        }
        if (j >= n) {
          return null;
        }
        i = j + 1;
      } else {
        word.append(c);
        i++;
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  // ---- lprff bench's options, from BenchCommand's source

  private static final Pattern DECLARATION =
      Pattern.compile("^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*([\\w.<>\\[\\]]+)\\s+(\\w+)\\s*[;=]");
  private static final Pattern NAME = Pattern.compile("\"(-[^\"]+)\"");

  /**
   * A picocli model of {@code lprff bench}'s options: for each {@code @Option} of BenchCommand,
   * its names, whether it is the usage help, and whether it takes a value (every type but boolean).
   */
  static CommandSpec benchSpec() throws IOException {
    String source = Files.readString(BENCH_SOURCE, StandardCharsets.UTF_8);
    CommandSpec spec = CommandSpec.create().name("lprff bench");
    int at = 0;
    int options = 0;
    while ((at = source.indexOf("@Option(", at)) >= 0) {
      int close = closingParenthesis(source, at + "@Option".length());
      String annotation = source.substring(at, close + 1);
      Matcher declaration = DECLARATION.matcher(source.substring(close + 1));
      if (!declaration.find()) {
        throw new AssertionError("BenchCommand: no field after " + annotation);
      }
      int equals = annotation.indexOf('=', annotation.indexOf("names"));
      String value = annotation.substring(equals + 1).strip();
      String namesText = value.startsWith("{")
          ? value.substring(0, value.indexOf('}') + 1)
          : value.substring(0, value.indexOf('"', 1) + 1);
      List<String> names = new ArrayList<>();
      Matcher name = NAME.matcher(namesText);
      while (name.find()) {
        names.add(name.group(1));
      }
      boolean flag = declaration.group(1).equals("boolean");
      spec.addOption(OptionSpec.builder(names.toArray(String[]::new))
          .type(flag ? boolean.class : String.class)
          .arity(flag ? "0" : "1")
          .usageHelp(annotation.contains("usageHelp = true"))
          .build());
      options++;
      at = close;
    }
    assertTrue(options >= 5, "BenchCommand: " + options + " options found in " + BENCH_SOURCE);
    return spec;
  }

  /** The index of the parenthesis closing the one at {@code open}, skipping string literals. */
  private static int closingParenthesis(String source, int open) {
    int depth = 0;
    for (int i = open; i < source.length(); i++) {
      char c = source.charAt(i);
      if (c == '"') {
        for (i++; source.charAt(i) != '"'; i++) {
          if (source.charAt(i) == '\\') {
            i++;
          }
        }
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return i;
      }
    }
    throw new AssertionError("unbalanced parentheses in " + BENCH_SOURCE);
  }
}
