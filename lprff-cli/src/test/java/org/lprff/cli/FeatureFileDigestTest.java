package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lprff.vector.simd.Implementation;
import org.lprff.vector.simd.VectorizationProvider;

/**
 * The bytes of feature files are a contract (DESIGN.md section 3): a file written by this build is
 * byte-identical to the one written when these digests were pinned (2026-11-24, before the package
 * restructuring of issue 11; re-pinned 2026-11-25 for format version 2, whose schema marks the
 * features column as an Arrow extension type: the record batches' bytes did not change), for every projection and bit width, both quantizers, three kernels
 * and both IPC framings. The first 3,000 rows of the shipped diamonds file, m = 300 (not a power
 * of two, so the structured projections cut their last block), seed 7.
 *
 * <p>The vector and scalar bodies agree bit for bit on every low-precision code up to 4 bits but
 * not on float32 values or on 8- and 16-bit codes of every row (the Vector API cosine and the
 * projections' summation order differ from the scalar reference by an ulp), so each file has one
 * digest per implementation. The vector digests are the same with 256-bit and 512-bit vectors
 * (checked with -XX:MaxVectorSize=32 on an AVX-512 machine).
 */
class FeatureFileDigestTest {

  @TempDir Path dir;

  static Stream<Arguments> files() {
    List<Arguments> rows = new ArrayList<>();
    String[][] pinned = {
      // name, extra options, vector digest, scalar digest
      {"circ-nearest-4.arrow", "-b 4 --projection circulant --quantizer nearest",
       "41cffbe3434070472fd0580e1c564a879d5e5daa9d2d759c08b422b0b5f4bbbb",
       "41cffbe3434070472fd0580e1c564a879d5e5daa9d2d759c08b422b0b5f4bbbb"},
      {"lap-2.arrows", "-b 2 --kernel laplacian --ipc stream",
       "897db25b7d3dfdd90507779951dcebe19b19128572851b490f89f69964592471",
       "4ce4d51057a9ed28a4a0764cfdebff19e0c2c9456e30781eec90c29de20fdb12"},
      {"mat-8.arrow", "-b 8 --kernel matern --nu 1.5 --length-scale 2",
       "ce47733194fef5f73cd7fee147df939427f480f1062de752b8c2ae5cbe5149d7",
       "cb12654cac703c3425d628dd8d8c47185fb3c48cbcf6416186cf883b6b4b2b2d"},
    };
    for (String[] p : pinned) {
      rows.add(Arguments.of(p[0], p[1], p[2], p[3]));
    }
    String[] projections = {"dense", "circulant", "fastfood", "orthogonal"};
    String[][] digests = {
      // b = 1, 2, 4, 8, 16, 32; vector then scalar
      {"cc17a34b66c36a505cbbd61dd7168b97ba668ddaafddce98c3a40cb63e548e66",
       "cc17a34b66c36a505cbbd61dd7168b97ba668ddaafddce98c3a40cb63e548e66",
       "57b13e9dd43f19c4a9cb917b932d71a21b711b02b045dc842247f2c48b9b3dea",
       "57b13e9dd43f19c4a9cb917b932d71a21b711b02b045dc842247f2c48b9b3dea",
       "d644acca943a38a2a6120c044cb918369a11e2d1eb4068c2d1cb2d8907ffcc09",
       "d644acca943a38a2a6120c044cb918369a11e2d1eb4068c2d1cb2d8907ffcc09",
       "8ebb39cb3ac864d765d7d1f3af3a2c86879c1ff74c99921f8a1c5a9ec34a949e",
       "521dc239b59c0c7f24f24fde49a2689d60da1763d1fc592531606c02d713cae7",
       "8abb631488442bfedba3b6b259ecfb38b441e2333820ad27e97c6cb5db77013f",
       "58649c5e4274648cfbcba7f4101667c8d62f5be584b8b1a1316025345483f732",
       "87c0c442a7cf8ec38eaf6f0ab0dedfd3e953d7c431868cb4c09ee82f9911b105",
       "b80c2a31fa01d2e437967325589048f71139218d9d1125dccc1d8a4c8b7fb624"},
      {"464325a2a85e9be4f145608917bb5c31696e4210c16de2843dc0412d27f50157",
       "464325a2a85e9be4f145608917bb5c31696e4210c16de2843dc0412d27f50157",
       "3bf4e19f03e3308d463a15830e45463d0aa85dabb3d555ea82cc37ec6ad96cde",
       "3bf4e19f03e3308d463a15830e45463d0aa85dabb3d555ea82cc37ec6ad96cde",
       "06b80c07c1a5a5de3904ce51f2d3f579ef81a970dc60f061cf64b03263aa2bd1",
       "06b80c07c1a5a5de3904ce51f2d3f579ef81a970dc60f061cf64b03263aa2bd1",
       "0ae6966d4371f10d7caa74eea01fcd49b3be3cb5f7dc000d2f3fb74adeae2ebe",
       "0ae6966d4371f10d7caa74eea01fcd49b3be3cb5f7dc000d2f3fb74adeae2ebe",
       "3ba03199c10f24fb4116228a09b0bd7f8a33c687c45234a3a8b5188abfc81866",
       "8cabbda896b63200d3dd7f9a7e64638206d1a7501392204f36bb478449ee1295",
       "cee33535030e1b88a38611a531e969fbe2ffcc755695f6f830c8e41140e12405",
       "7800ee9cea3435aea6d544102f1b79c095fa7c8d0d8d9288e41d81a0fbe1a069"},
      {"8308fb30ad3f0a71004eca3547a52889e14f54f7ef78572969084530330652c4",
       "8308fb30ad3f0a71004eca3547a52889e14f54f7ef78572969084530330652c4",
       "fd069473639117010d165463dcc41c6bbcf680a2f2d326dd5c7dda04d449c86b",
       "fd069473639117010d165463dcc41c6bbcf680a2f2d326dd5c7dda04d449c86b",
       "4b802bb2276c83f0bf17a50890616d8ba122d02c5cf51add44dbfcf6143c14b3",
       "4b802bb2276c83f0bf17a50890616d8ba122d02c5cf51add44dbfcf6143c14b3",
       "fdb59041652a16bdcba42c0ffc0f13bc509c4e4631a26b0ae96a4ef1c8b52f48",
       "473e060414f1b14934e9c874177f1fb3324b6e199c71da5224218d1ced893ca7",
       "bd90341f6eb975620e9b43ad32fc8a031517687b3286b4f4aa4d775a16a59cf5",
       "78f29c4e887b2e5a2aa63f4f9c18a8ca2e3309586d26b2cdc18a40a5a3207f50",
       "f581724da304af01ed498f22e496ad5c4d26603a30674bd34d6c324d3db2871b",
       "d6ffb3e6d57a194607e448566dc0f0a5ccb0648e48dd7fde91ac7992c8b9d603"},
      {"3f61c8342ee0c2e263b522c12eeb2f849abbad56809fdef99d80dd00ba9a9174",
       "3f61c8342ee0c2e263b522c12eeb2f849abbad56809fdef99d80dd00ba9a9174",
       "d416eafe759fdffcabe36e929f7e37ff784f6cc278be72ec2627a061a1bdf062",
       "d416eafe759fdffcabe36e929f7e37ff784f6cc278be72ec2627a061a1bdf062",
       "c0cbaad5d429227f0fea626337eae450ac1c4a3a4b3aded5ef1bb96c1b5351fa",
       "c0cbaad5d429227f0fea626337eae450ac1c4a3a4b3aded5ef1bb96c1b5351fa",
       "3e5b5de7057cf8e08db5a9a98e6702ce8afd9a78d52cfcac61224f93cc8458e8",
       "b4ee625ebe31a7468b765e387253c51be00a7e6c914aca140d94c3f7f54e203d",
       "46577ebb0a38116c019c6de9af93fcce5c5bed250a74ff8fcd838bba1bad3de7",
       "5063ebb614f6da208e1afc2cf3fec2b32a2ce67fefe0ab632c6ebbbe58e03193",
       "660d3952f9f46e9f5ebbdc35776fd4e0bbd21930b1b6c6f415690bbaf2180fd9",
       "24bfa785f4e47b4ae6e182938885b93f45b45a5fc7cfbee19168529edcea0a2f"},
    };
    int[] bits = {1, 2, 4, 8, 16, 32};
    for (int p = 0; p < projections.length; p++) {
      for (int i = 0; i < bits.length; i++) {
        rows.add(Arguments.of(
            projections[p] + "-" + bits[i] + ".arrow",
            "-b " + bits[i] + " --projection " + projections[p] + " --row-ids",
            digests[p][2 * i], digests[p][2 * i + 1]));
      }
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void featureFileBytesArePinned(String name, String options, String vector, String scalar)
      throws IOException, URISyntaxException, NoSuchAlgorithmException {
    Path diamonds = Path.of(Main.class.getResource("diamonds.csv").toURI());
    Path out = dir.resolve(name);
    List<String> args = new ArrayList<>(List.of(
        "featurize", "-q", "-i", diamonds.toString(), "--rows", "0:3000", "--standardize",
        "-m", "300", "--seed", "7", "-o", out.toString()));
    if (!options.contains("--kernel matern")) {
      args.addAll(List.of("--sigma", "2"));
    }
    args.addAll(List.of(options.split(" ")));
    Cli.ok(args.toArray(String[]::new));
    VectorizationProvider provider = VectorizationProvider.get();
    String expected = provider.implementation() == Implementation.VECTOR ? vector : scalar;
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(out));
    assertEquals(expected, HexFormat.of().formatHex(sha), name + " (" + provider.describe() + ")");
  }
}
