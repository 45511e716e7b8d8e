package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.flatbuf.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checksums on the command line: {@code info --verify} reads every record batch and names the
 * first damaged one; train and evaluate verify before they start unless told {@code --no-verify}.
 */
class ChecksumCommandsTest {

  @TempDir Path dir;

  /** 300 rows in record batches of 50 (6 batches), d = 4, m = 64, b = 4, regression labels. */
  private Path featurize(String name, String framing) throws IOException {
    Path csv = Inputs.Table.random(300, 4, 3).writeCsv(dir.resolve(name + ".csv"));
    Path out = dir.resolve(name);
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "1", "-m", "64", "-b", "4",
        "--batch-size", "50", "--ipc", framing, "-o", out.toString(), "-q");
    return out;
  }

  /** A copy of {@code file} with one bit flipped in the body of record batch 3. */
  private Path damaged(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    // Walk the encapsulated messages (0xFFFFFFFF, metadata length, metadata, body): the schema,
    // then record batches 0, 1, 2, 3.
    int position = bytes[0] == 'A' ? 8 : 0;
    for (int message = 0; message < 4; message++) {
      int metadata = b.getInt(position + 4);
      position += 8 + metadata + (int) Message.getRootAsMessage(
          b.slice(position + 8, metadata).order(ByteOrder.LITTLE_ENDIAN)).bodyLength();
    }
    int batch3Body = position + 8 + b.getInt(position + 4);
    bytes[batch3Body + 10] ^= 0x10;
    Path copy = dir.resolve("damaged-" + file.getFileName());
    Files.write(copy, bytes);
    return copy;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "stream"})
  void infoVerifyChecksEveryBatchAndNamesTheFirstDamagedOne(String framing) throws IOException {
    Path file = featurize("x-" + framing + ".arrow", framing);
    String text = Cli.ok("info", file.toString(), "--verify").out();
    assertTrue(text.contains("checksums        verified: 6 of 6 record batches intact (CRC32C of "),
        text);
    String json = Cli.ok("info", file.toString(), "--verify", "--json").out();
    assertTrue(json.contains(
        "\"checksums\":{\"algorithm\":\"crc32c\",\"record_batches\":6,\"verified\":6,\"bytes\":"),
        json);
    assertTrue(Cli.ok("info", file.toString(), "--json").out().contains("\"checksums\":null"));
    assertFalse(Cli.ok("info", file.toString()).out().contains("checksums"),
        "without --verify no body is read");

    Path bad = damaged(file);
    Cli.ok("info", bad.toString()); // the structure is intact: only --verify reads the bodies
    Cli.Result result = Cli.run("info", bad.toString(), "--verify");
    assertEquals(1, result.exitCode(), result.toString());
    assertEquals(1, result.err().lines().count(), result.toString());
    assertTrue(result.err().contains("file " + bad + ": record batch 3 (rows 150 to 199"),
        result.toString());
    assertTrue(result.err().contains("fails its CRC32C check"), result.toString());
  }

  @Test
  void trainAndEvaluateRefuseADamagedFileUnlessToldNotToVerify() throws IOException {
    Path train = featurize("train.arrow", "file");
    Path held = featurize("held.arrow", "file");
    Path model = dir.resolve("model.arrow");
    Cli.Result ok = Cli.ok("train", "--train", train.toString(), "--heldout", held.toString(),
        "--task", "regression", "--solver", "closed-form", "-o", model.toString());
    assertTrue(ok.err().contains("checksums: 12 record batches of 2 files verified"), ok.err());

    Path bad = damaged(train);
    Path badModel = dir.resolve("bad-model.arrow");
    Cli.Result refused = Cli.run("train", "--train", bad.toString(), "--heldout",
        held.toString(), "--task", "regression", "--solver", "closed-form", "-o",
        badModel.toString());
    assertEquals(1, refused.exitCode(), refused.toString());
    assertTrue(refused.err().contains("file " + bad + ": record batch 3"), refused.toString());
    assertFalse(Files.exists(badModel), "no model from a damaged file");

    Cli.Result unchecked = Cli.ok("train", "--train", bad.toString(), "--heldout",
        held.toString(), "--task", "regression", "--solver", "closed-form", "-o",
        badModel.toString(), "--no-verify");
    assertFalse(unchecked.err().contains("checksums:"), unchecked.err());
    assertTrue(Files.exists(badModel));

    Cli.Result evaluate = Cli.run("evaluate", "--model", model.toString(), "--data",
        damaged(held).toString());
    assertEquals(1, evaluate.exitCode(), evaluate.toString());
    assertTrue(evaluate.err().contains("fails its CRC32C check"), evaluate.toString());
    Cli.ok("evaluate", "--model", model.toString(), "--data", damaged(held).toString(),
        "--no-verify");
  }
}
