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
 * features column as an Arrow extension type: the record batches' bytes did not change; and for
 * b <= 8 once more on 2026-11-25 (issue 15), when the cosine, the rounding and the packing became
 * one kernel with the cosine at the precision b needs), for every projection and bit width, both
 * quantizers, three kernels
 * and both IPC framings. The first 3,000 rows of the shipped diamonds file, m = 300 (not a power
 * of two, so the structured projections cut their last block), seed 7.
 *
 * <p>The vector and scalar bodies agree bit for bit on the codes of b <= 8 but for rare rows of
 * the projections whose summation order differs from the scalar reference by an ulp, and not on
 * float32 values or 16-bit codes (the full-precision Vector API cosine differs from the scalar
 * one by an ulp), so each file has one digest per implementation. The vector digests are the same with 256-bit and 512-bit vectors
 * (checked with -XX:MaxVectorSize=32 on an AVX-512 machine).
 */
class FeatureFileDigestTest {

  @TempDir Path dir;

  static Stream<Arguments> files() {
    List<Arguments> rows = new ArrayList<>();
    String[][] pinned = {
      // name, extra options, vector digest, scalar digest
      {"circ-nearest-4.arrow", "-b 4 --projection circulant --quantizer nearest",
       "e6363148221db553db778f03b7a720c7fd5b07f861b7e629cfbc50a7e0c2a7ed",
       "e6363148221db553db778f03b7a720c7fd5b07f861b7e629cfbc50a7e0c2a7ed"},
      {"lap-2.arrows", "-b 2 --kernel laplacian --ipc stream",
       "1e6d7ac8f64f7eb56ce69b33405dd168e9c49a1133f0f1483f2ab73ba0e3d18c",
       "52c702103d673c660ecf04dc37b44f712854118d8d5123a8d07a4e4eac845c5d"},
      {"mat-8.arrow", "-b 8 --kernel matern --nu 1.5 --length-scale 2",
       "3c43476da4b23d07b64e42ec4dff70aa29b45ed8a9ac4a88ffc1f3f9bf1e45a9",
       "d3c7f7baadb3162cc8925f0ae705018a60efbedf5be1ee6c1be14812cbe49bfa"},
    };
    for (String[] p : pinned) {
      rows.add(Arguments.of(p[0], p[1], p[2], p[3]));
    }
    String[] projections = {"dense", "circulant", "fastfood", "orthogonal"};
    String[][] digests = {
      // b = 1, 2, 4, 8, 16, 32; vector then scalar
      {"b957f851189993983b0bd4fb5297fb1c3faf0e9e599ef3ef054fac7891d8c1b2",
       "b957f851189993983b0bd4fb5297fb1c3faf0e9e599ef3ef054fac7891d8c1b2",
       "8cff696ff9182547ecf1ac2f69b8f798f68199fe49dce4bf8ebfb1411062b853",
       "8cff696ff9182547ecf1ac2f69b8f798f68199fe49dce4bf8ebfb1411062b853",
       "c1948a5225a1dede726edd815cd2d2feef7f991bcedabb55b684572b6463f8e0",
       "c1948a5225a1dede726edd815cd2d2feef7f991bcedabb55b684572b6463f8e0",
       "874d855736dd30ccb2c1cbcb96a57de8adc4aa6ac379db85eac35f389b20f207",
       "6e5875dc6a2181507a31e4e02db65ef4e4cd4cc755513dcb344f697282a32bce",
       "8abb631488442bfedba3b6b259ecfb38b441e2333820ad27e97c6cb5db77013f",
       "58649c5e4274648cfbcba7f4101667c8d62f5be584b8b1a1316025345483f732",
       "87c0c442a7cf8ec38eaf6f0ab0dedfd3e953d7c431868cb4c09ee82f9911b105",
       "b80c2a31fa01d2e437967325589048f71139218d9d1125dccc1d8a4c8b7fb624"},
      {"c04237bbc775efb8033d0d5c84f2e0e87a716b8e8da5b819d951d0291a1ec318",
       "c04237bbc775efb8033d0d5c84f2e0e87a716b8e8da5b819d951d0291a1ec318",
       "38538a6b2559c9f825f73e369e637346a4e9d74446d94818a41f7b4ab83b71cc",
       "38538a6b2559c9f825f73e369e637346a4e9d74446d94818a41f7b4ab83b71cc",
       "d679614d6feb57d9c3b43c0124afd6f4689c167563c4bb13d4a5b4aae8460d64",
       "d679614d6feb57d9c3b43c0124afd6f4689c167563c4bb13d4a5b4aae8460d64",
       "95029a38dba2a8fd13b5c411757c7fe583979991f958b5b53d564de6d0b640d7",
       "95029a38dba2a8fd13b5c411757c7fe583979991f958b5b53d564de6d0b640d7",
       "3ba03199c10f24fb4116228a09b0bd7f8a33c687c45234a3a8b5188abfc81866",
       "8cabbda896b63200d3dd7f9a7e64638206d1a7501392204f36bb478449ee1295",
       "cee33535030e1b88a38611a531e969fbe2ffcc755695f6f830c8e41140e12405",
       "7800ee9cea3435aea6d544102f1b79c095fa7c8d0d8d9288e41d81a0fbe1a069"},
      {"33b989f8a69c288be77d6e5bd213e3da68090ca5b0c0a695c650f098bdaebdce",
       "33b989f8a69c288be77d6e5bd213e3da68090ca5b0c0a695c650f098bdaebdce",
       "729be52ae9b112e80e1468ed1b750acbd7c1751f3ea8630dfe95736adb1e75e9",
       "729be52ae9b112e80e1468ed1b750acbd7c1751f3ea8630dfe95736adb1e75e9",
       "f192bfc9fb6f5bc5089ebf3d734dac14726c8623a83e5271edbb9b9474e909ce",
       "f192bfc9fb6f5bc5089ebf3d734dac14726c8623a83e5271edbb9b9474e909ce",
       "0d8a62c56136da9c7136b6f6a34cefc0a6e05f5a0187459f2384ed1307a19713",
       "0d8a62c56136da9c7136b6f6a34cefc0a6e05f5a0187459f2384ed1307a19713",
       "bd90341f6eb975620e9b43ad32fc8a031517687b3286b4f4aa4d775a16a59cf5",
       "78f29c4e887b2e5a2aa63f4f9c18a8ca2e3309586d26b2cdc18a40a5a3207f50",
       "f581724da304af01ed498f22e496ad5c4d26603a30674bd34d6c324d3db2871b",
       "d6ffb3e6d57a194607e448566dc0f0a5ccb0648e48dd7fde91ac7992c8b9d603"},
      {"3f61c8342ee0c2e263b522c12eeb2f849abbad56809fdef99d80dd00ba9a9174",
       "3f61c8342ee0c2e263b522c12eeb2f849abbad56809fdef99d80dd00ba9a9174",
       "29850fccc3addf8eac527a2582e2c6ae8c19ea3e137f118ff2fd88ee00b399fa",
       "29850fccc3addf8eac527a2582e2c6ae8c19ea3e137f118ff2fd88ee00b399fa",
       "daa32e94b7105ab9fcb5ade86b21fe12db9e7ce266e3403641f79cc335fcf377",
       "daa32e94b7105ab9fcb5ade86b21fe12db9e7ce266e3403641f79cc335fcf377",
       "307dccbd55cd79bb527ecc944f78fbcebb66cfbde7c4fde918f4e78ff1f093d2",
       "307dccbd55cd79bb527ecc944f78fbcebb66cfbde7c4fde918f4e78ff1f093d2",
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
