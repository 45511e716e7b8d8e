package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.cli.output.Human;
import org.lprff.report.Json;

/** lprff info: the text and JSON forms, for both framings, b < 32 and b = 32. */
class InfoCommandTest {

  @TempDir Path dir;

  @Test
  void textOfAPackedFile() throws IOException {
    Path csv = Inputs.Table.random(23, 4, 3).writeCsv(dir.resolve("x.csv"));
    Path out = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--standardize", "--sigma", "0.5", "-m", "100",
        "-b", "2", "--projection", "orthogonal", "--seed", "42", "--batch-size", "10",
        "--row-ids", "-o", out.toString(), "-q");
    Cli.Result result = Cli.ok("info", out.toString());
    assertEquals("", result.err());
    long size = Files.size(out);
    assertEquals(String.join("\n",
        "file             " + out,
        "ipc              file (Arrow IPC random-access file)",
        "format version   2",
        "kernel           gaussian (sigma 0.5)",
        "input dim (d)    4",
        "features (m)     100",
        "bits (b)         2",
        "projection       orthogonal",
        "seed             42",
        "quantizer        stochastic",
        "scale            lo -0.14142136, step 0.094280906 (value = lo + code * step)",
        "bit order        lsb0 (feature i in bits [2i, 2i + 2) of its row, least significant"
            + " first)",
        "labels           Float32 (regression)",
        "row ids          yes (Int64 column row_id)",
        "rows             23",
        "record batches   3",
        "bytes per row    25",
        "file size        " + Human.bytes(size) + " (" + Human.count(size) + " bytes)",
        "standardization  4 columns: c0, c1, c2, c3") + "\n",
        result.out().replace(System.lineSeparator(), "\n"));
  }

  @Test
  void textOfAFloatStream() throws IOException {
    Path csv = Inputs.Table.random(5, 3, 3).withClassLabels(2).writeCsv(dir.resolve("x.csv"));
    Path out = dir.resolve("x.arrows");
    Cli.ok("featurize", "-i", csv.toString(), "--kernel", "matern", "--nu", "2.5",
        "--length-scale", "3", "-m", "10", "-b", "32", "--ipc", "stream", "--label-type",
        "classes", "-o", out.toString(), "-q");
    String text = Cli.ok("info", out.toString()).out();
    for (String line : List.of(
        "ipc              stream (Arrow IPC stream)",
        "kernel           matern (nu 2.5, length_scale 3.0)",
        "bits (b)         32 (float32 features)",
        "quantizer        stochastic (unused at 32 bits)",
        "scale            none (float32 features)",
        "labels           Int32 (classes)",
        "row ids          no",
        "rows             5",
        "record batches   1",
        "bytes per row    40",
        "standardization  none")) {
      assertTrue(text.contains(line + System.lineSeparator()), "missing '" + line + "' in\n" + text);
    }
  }

  @Test
  void json() throws IOException {
    Path csv = Inputs.Table.random(23, 4, 3).writeCsv(dir.resolve("x.csv"));
    Path out = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "2", "-m", "64", "-b", "16",
        "--ipc", "stream", "-o", out.toString(), "-q");
    String json = Cli.ok("info", "--json", out.toString()).out();
    assertEquals(1, json.lines().count(), "one line: " + json);
    assertTrue(json.startsWith("{\"file\":" + Json.write(out.toString()) + ",\"ipc\":\"stream\","
        + "\"format_version\":\"2\",\"kernel\":{\"name\":\"gaussian\",\"sigma\":2.0},"
        + "\"input_dim\":4,\"features\":64,\"bits\":16,\"projection\":\"dense\",\"seed\":0,"
        + "\"quantizer\":\"stochastic\",\"model_features\":64,\"condensation\":null,"
        + "\"scale\":{\"lo\":-0.17677669,\"step\":5.394879E-6},\"codebook\":null,"
        + "\"bit_order\":\"lsb0\",\"label_type\":\"regression\",\"row_ids\":false,\"rows\":23,"
        + "\"record_batches\":1,\"bytes_per_row\":128,\"file_size\":" + Files.size(out)
        + ",\"standardization\":null,\"metadata\":{\"lprff.format.version\":\"2\","), json);
  }
}
