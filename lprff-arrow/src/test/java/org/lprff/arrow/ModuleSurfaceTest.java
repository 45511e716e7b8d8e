package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exported packages of modules {@code org.lprff.vector} and {@code org.lprff.arrow} are their
 * API, and no exported signature names a type its readers cannot see: a type of an unexported
 * package (a compute body, an Arrow internal) or of a module not required transitively. This
 * compiles both modules' main sources as modules, in one javac run with {@code -Xlint:exports},
 * and fails on any {@code [exports]} warning, naming each one.
 *
 * <p>The module path is the part of this test's class path the two descriptors require (EJML,
 * Arrow and what Arrow requires), found by reading each jar's module name; tests run on the class
 * path, where nothing else would check the descriptors' promises.
 */
class ModuleSurfaceTest {

  /** The diagnostic codes of lint category {@code exports} (javac's compiler.properties). */
  private static final String EXPORTS_CODE = "compiler.warn.leaks.not.accessible";

  private static final Pattern REQUIRES =
      Pattern.compile("^\\s*requires\\s+((?:transitive|static)\\s+)*([\\w.]+)\\s*;",
          Pattern.MULTILINE);

  @TempDir Path out;

  @Test
  void noExportedSignatureNamesATypeItsReadersCannotSee() throws IOException {
    Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    Map<String, Path> sources = new LinkedHashMap<>();
    sources.put("org.lprff.vector", base.resolve("../lprff-vector/src/main/java").normalize());
    sources.put("org.lprff.arrow", base.resolve("src/main/java"));
    for (Path root : sources.values()) {
      assertTrue(Files.isRegularFile(root.resolve("module-info.java")),
          "no module-info.java under " + root + " (run from lprff-arrow's folder)");
    }

    List<Path> modulePath = modulePath(sources);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "no system Java compiler: run the tests on a JDK");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<String> options = new ArrayList<>(List.of(
        "-Xlint:exports", "-proc:none", "-implicit:none", "-encoding", "UTF-8",
        "-d", out.toString(),
        "--module-path", modulePath.stream().map(Path::toString)
            .collect(Collectors.joining(File.pathSeparator))));
    for (Map.Entry<String, Path> module : sources.entrySet()) {
      options.add("--module-source-path");
      options.add(module.getKey() + "=" + module.getValue());
    }
    StringWriter output = new StringWriter();
    boolean compiled;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<Path> java = new ArrayList<>();
      for (Path root : sources.values()) {
        try (Stream<Path> walk = Files.walk(root)) {
          walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(java::add);
        }
      }
      compiled = javac.getTask(output, files, diagnostics, options, null,
          files.getJavaFileObjectsFromPaths(java)).call();
    }

    List<String> errors = new ArrayList<>();
    List<String> leaks = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      String where = (d.getSource() == null ? "" : base.relativize(Path.of(d.getSource().toUri()))
          .normalize() + ":" + d.getLineNumber() + ": ");
      String line = where + d.getMessage(Locale.ROOT);
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add(line);
      } else if (d.getCode() != null && d.getCode().startsWith(EXPORTS_CODE)) {
        leaks.add(line);
      }
    }
    assertTrue(compiled && errors.isEmpty(), "the modules do not compile on module path "
        + modulePath + ":\n" + String.join("\n", errors) + output);
    assertTrue(leaks.isEmpty(), leaks.size() + " exported signature(s) name a type their"
        + " readers cannot see ([exports]); move the type to an exported package, make the member"
        + " non-public, or require its module transitively:\n" + String.join("\n", leaks));
  }

  /**
   * The jars of this test's class path (and module path, if any) that the descriptors under
   * {@code sources} require, transitively by their own descriptors' non-static requires.
   */
  private static List<Path> modulePath(Map<String, Path> sources) throws IOException {
    Map<String, Path> jars = new LinkedHashMap<>();
    for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
      String value = System.getProperty(property);
      if (value == null || value.isEmpty()) {
        continue;
      }
      for (String entry : value.split(File.pathSeparator)) {
        Path jar = Path.of(entry);
        if (!entry.endsWith(".jar") || !Files.isRegularFile(jar)) {
          continue;
        }
        try {
          for (ModuleReference found : ModuleFinder.of(jar).findAll()) {
            jars.putIfAbsent(found.descriptor().name(), jar);
          }
        } catch (FindException | IllegalArgumentException e) {
          // A jar that cannot be a module (no derivable name): never one the modules require.
        }
      }
    }
    Deque<String> pending = new ArrayDeque<>();
    for (Path root : sources.values()) {
      Matcher m = REQUIRES.matcher(Files.readString(root.resolve("module-info.java")));
      while (m.find()) {
        pending.add(m.group(2));
      }
    }
    Set<String> seen = new LinkedHashSet<>();
    List<Path> path = new ArrayList<>();
    while (!pending.isEmpty()) {
      String name = pending.pop();
      if (sources.containsKey(name) || ModuleFinder.ofSystem().find(name).isPresent()
          || !seen.add(name)) {
        continue;
      }
      Path jar = jars.get(name);
      assertNotNull(jar, "module " + name + " is required but on neither the test's class path"
          + " nor its module path");
      path.add(jar);
      ModuleDescriptor descriptor = ModuleFinder.of(jar).find(name).orElseThrow().descriptor();
      for (ModuleDescriptor.Requires r : descriptor.requires()) {
        if (!r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
          pending.add(r.name());
        }
      }
    }
    return path;
  }
}
