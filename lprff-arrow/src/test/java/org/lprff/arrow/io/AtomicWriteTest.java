package org.lprff.arrow.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link AtomicWrite#write}: the whole file replaces the target, and no temporary is left. */
class AtomicWriteTest {

  @TempDir Path dir;

  @Test
  void writeReplacesTheTargetWholeAndLeavesNoTemporary() throws IOException {
    Path target = dir.resolve("summary.md");
    Files.writeString(target, "an older, longer text than the new one");
    byte[] bytes = "new".getBytes();
    AtomicWrite.write(target, bytes);
    assertArrayEquals(bytes, Files.readAllBytes(target));
    assertEquals(List.of(target), list(dir));
    AtomicWrite.write(target, new byte[0]);
    assertEquals(0, Files.size(target));
  }

  @Test
  void aFolderThatCannotTakeTheFileLeavesNothing() throws IOException {
    Path missing = dir.resolve("no-such-folder").resolve("x.csv");
    assertThrows(NoSuchFileException.class, () -> AtomicWrite.write(missing, new byte[] {1}));
    assertEquals(List.of(), list(dir));
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
