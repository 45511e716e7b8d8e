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
 * one kernel with the cosine at the precision b needs; and on 2026-11-26 (issue 19), when every
 * record batch message gained the CRC32C of its body in its custom metadata: the bodies and the
 * tables did not change, checked against the previous build's files for all 27 files with both
 * bodies; and on 2026-11-28 (issue 32), when stochastic rounding at b <= 8 took 8-bit draws and
 * every stochastic file gained {@code lprff.rng}: checked against the previous build's files with
 * both bodies, the features of b = 16 and 32 and of round-to-nearest did not change, those of
 * stochastic b <= 8 did, and the schema gained that one key), for every projection and bit
 * width, both
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
       "d90a336746a0797f373a04258ec20b20be193ef145a224200da7f8112bde5e68",
       "d90a336746a0797f373a04258ec20b20be193ef145a224200da7f8112bde5e68"},
      {"lap-2.arrows", "-b 2 --kernel laplacian --ipc stream",
       "ecc5af70d2aee3cfb961149c5b6a19e6fd74266f5f63f582e4f61587d4453f1c",
       "9f80b871171e0ac7ed7d5ea7428e18d20aeec190bfed02a8f4f379c7da21ed40"},
      {"mat-8.arrow", "-b 8 --kernel matern --nu 1.5 --length-scale 2",
       "5275b6edb4d95f0e622e4e53925c421429a4effb4f20608467eeed5e942a1e58",
       "6568fa2ee7fbed0c917d5a5d8a8dd7eb51267e0eaffc4234a12194b991bb6e1d"},
    };
    for (String[] p : pinned) {
      rows.add(Arguments.of(p[0], p[1], p[2], p[3]));
    }
    String[] projections = {"dense", "circulant", "fastfood", "orthogonal"};
    String[][] digests = {
      // b = 1, 2, 4, 8, 16, 32; vector then scalar
      {"4b5da5269d0bd43d91714e194585f25205cecf8b22def34768b4d2f2db00548f",
       "4b5da5269d0bd43d91714e194585f25205cecf8b22def34768b4d2f2db00548f",
       "c7b1e15aa7473a85240513f5664ca28deb80b46b017d95904fe6c38c7df87c03",
       "33494802fae64f902e5191430591ceaa63c56b9dfac876340a2b96bdb92414da",
       "0a2f8300e7929a49f1433521a4dbb68b7e0bf16a4926d4ea5df39a2423a299f8",
       "1760ad560e8b1083851c9bf6f7c78de5d5ccca7ec09c5aedb4ca4b1ca4011d79",
       "ee0387b262a58d061c88d3fac2655560ffa6e25931962bbd3164fab8a44cd8da",
       "ffe08e8e04909bcc0e1d5f93dd817fd46ee1e03dc06884a6de04618a21df72a0",
       "9c8a8320e3a3a286f6df73c96053dd68a41daacba0888fbc97dc70a37d0a8583",
       "671ba2780bf68215f5cea0946c7dcf68304b1de79965a885f4f714025b1a1233",
       "52e2bb7e1959852d6ecdf99032016a282b8152f574c56f736df4bf1b76b83c1a",
       "93c357dcee5458e979c9dab462ec44fd041bbbb9c8831d760f7c09d54e372dec"},
      {"4d34c16b9a37fced887462ab31bad963bbb8b4fb1ab19ec5b83171a400b6f1fa",
       "4d34c16b9a37fced887462ab31bad963bbb8b4fb1ab19ec5b83171a400b6f1fa",
       "9c0544746bdfc90f856bc77a1d399eebf6b6d645d8fb1fcc80795003c6a7ab0a",
       "9c0544746bdfc90f856bc77a1d399eebf6b6d645d8fb1fcc80795003c6a7ab0a",
       "b8096935b01e30fa00e32104ed06b20a260e9fdffd8d19af477a3e9f850255aa",
       "b8096935b01e30fa00e32104ed06b20a260e9fdffd8d19af477a3e9f850255aa",
       "79dd46f02b01bc3a0dfb6f957119faa9dfc25158a7612b46f773d5b767ce43b1",
       "79dd46f02b01bc3a0dfb6f957119faa9dfc25158a7612b46f773d5b767ce43b1",
       "b9a77f5e2a694911e29b595dc7f44133becb986ec856aa9666fa42cb420dc900",
       "f5eaa7bc33259e0b6b6e0bc0c8d365f735afe54841abe66bb30edf31b5fe520b",
       "fac5895334ff22aaf4cb85dcb3e60d80ea0d380038638b4a2fc896d87c31c4d5",
       "04992b9e1c2bf64dab57b767f16ad883773528cb76b73a358fa3f2294a148c9b"},
      {"a587ceb81ab3b0b3b1340184c5ba999fb79d282038a24658b6eea80a431475b6",
       "a587ceb81ab3b0b3b1340184c5ba999fb79d282038a24658b6eea80a431475b6",
       "7e0c25db92b8a55399123aaec8bb035b07b3f362fdfe3abf491e923f9ef96e74",
       "7e0c25db92b8a55399123aaec8bb035b07b3f362fdfe3abf491e923f9ef96e74",
       "49e4fe6dedef61203ebc469bfc3e4736eb4245ec8981ad953f1b3623fad6c484",
       "49e4fe6dedef61203ebc469bfc3e4736eb4245ec8981ad953f1b3623fad6c484",
       "ee9cce367ec3f633960fcc16e9df1012f8e164365387397574f67af51ea59241",
       "ee9cce367ec3f633960fcc16e9df1012f8e164365387397574f67af51ea59241",
       "2e4ce42431d4b9abbe48520be65005637b0db9e09f331733c17f7db33b0e765e",
       "e07b8330ae4937dee9cb89fa5ef46dd163841183a07ce08c218206a815685d38",
       "1be0b721ba77ee245f971805d764a64a65bef8bd02619a367e14a07b79da503b",
       "db0bfa9ceeb303842501a284cc34a978f51649e11799ba3b9a0ac6edb562ed21"},
      {"d99304c472284e41ebbc7a353526e9ae721cd5abe6adb60c54967ce3cd07e91f",
       "d99304c472284e41ebbc7a353526e9ae721cd5abe6adb60c54967ce3cd07e91f",
       "0612a7078afb676c5730607558042a0c10275c98cdd8fe347c3436a7352e1774",
       "0612a7078afb676c5730607558042a0c10275c98cdd8fe347c3436a7352e1774",
       "266903df4e2f669f5862a97e4780f97ed07e02f8916dc5a8080f01574ee806cf",
       "266903df4e2f669f5862a97e4780f97ed07e02f8916dc5a8080f01574ee806cf",
       "a8cb72659da29c9ed912105c5762fab8f46bcb71c84c693ad3310bf00615e9b9",
       "a8cb72659da29c9ed912105c5762fab8f46bcb71c84c693ad3310bf00615e9b9",
       "b92ad925ad56d6fbf7b55e855dd0ec3fdfa2db2c5f8cfc9c5715d01badff4a69",
       "033703cc8a2b600002a9a88875bf27dbb7023e6e4cb111c83b954b97b46a8725",
       "4f88144ad3f931b90934a54502b64e86a81730b878533b6bcfd22073224770d9",
       "a11bbc264d563245dae6b2a5fcae9e16d9c86bc31245f47119ba93ec65074e62"},
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
