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
 * bodies), for every projection and bit width, both
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
       "edbdbfbebe1d88f16767a74807d5ed912950857b5c8722e0d5033b8e15d67450",
       "50884b5200a6a4523deee80e9942d5e3c0e86aa0960ce826c10d2f9fa95c1ec5"},
      {"mat-8.arrow", "-b 8 --kernel matern --nu 1.5 --length-scale 2",
       "8f5b14b2e8225536ef73c1bce49227dbdb22d153da4a97bea3aef881993e1242",
       "27b4056daba07115ae128e83e79583e96acdcc851a8d2b5179a96008f38b4c8b"},
    };
    for (String[] p : pinned) {
      rows.add(Arguments.of(p[0], p[1], p[2], p[3]));
    }
    String[] projections = {"dense", "circulant", "fastfood", "orthogonal"};
    String[][] digests = {
      // b = 1, 2, 4, 8, 16, 32; vector then scalar
      {"d93478bc34a85feee45c4bcabeb2d387609a807bafdaa96c42aa6eebfc822021",
       "d93478bc34a85feee45c4bcabeb2d387609a807bafdaa96c42aa6eebfc822021",
       "611c26923850c07536ecdbdfd9631a1bf5ad15e069e5ea2e097bfa2339eecb4c",
       "611c26923850c07536ecdbdfd9631a1bf5ad15e069e5ea2e097bfa2339eecb4c",
       "9cf49b1812ef35c966390e17da3d39b3692847c4073389561dfc5b4039ee2044",
       "9cf49b1812ef35c966390e17da3d39b3692847c4073389561dfc5b4039ee2044",
       "ca6080a538e0854077b592bbf2cfd8ad4717098172fa6c713faf49c4e981787f",
       "af114c3d75fd311fff81883cdc9a24ec9b6ecd0f552fc1a12fdb63f403e1532e",
       "722f6f2159a4ef21e4e7263bcb7283c6e081d9b34a1cddc906809af4f4b7b831",
       "cf5d46541406cf93a21f02d8a2d397dcbbb320d567c96c9b1307e191bfea9a07",
       "e198ceaa450a4d25453f10229c11173d60ed68e9968f3183cdf86587c0579c2c",
       "fe074ba9b9c521088f0d0ca4fda13dd1bfbbd8acb7c6aa086e339621b808fe65"},
      {"bd630fe14b4af9eacaf0221a198df20bf6e9af7a7177b8a2cd462b6e009a6af9",
       "bd630fe14b4af9eacaf0221a198df20bf6e9af7a7177b8a2cd462b6e009a6af9",
       "a0e59a2b32582265c4e4e78db8afec4cb13554a65b86234c6ccb4bc81af8a42a",
       "a0e59a2b32582265c4e4e78db8afec4cb13554a65b86234c6ccb4bc81af8a42a",
       "94a5a4d8c4f2f26bfd8582eb45bd9d73537121dbbfe0c77b5906444231233e35",
       "94a5a4d8c4f2f26bfd8582eb45bd9d73537121dbbfe0c77b5906444231233e35",
       "94856ceabab1c7c6e7c1159c13b4c73f4245b271e09ceccbd1fa7c5029267066",
       "94856ceabab1c7c6e7c1159c13b4c73f4245b271e09ceccbd1fa7c5029267066",
       "53a90bd2b35d4f289e295d5d8ebc17c68271bbe07703e388f3bdec0cbb1989d7",
       "4cd582cc493ba75de41a423208b41182b9403a82d29a35d3078e58bc454d583f",
       "53480423889916ab2a4e948dd7895f105ec0f10568d286d0a6e283f5dae4a8d1",
       "797dcfcb83f8f2cafa8546a1d638b54519282cac61415460192a63d5720b8270"},
      {"27ab91decd546043499473752646e8eb12dec1f1e45e1abef1e4a72b2103912c",
       "27ab91decd546043499473752646e8eb12dec1f1e45e1abef1e4a72b2103912c",
       "44ee4f332ae04025f26b7ff3407696ca9275fa6bd2448fbfc9685e6ba27a25bd",
       "44ee4f332ae04025f26b7ff3407696ca9275fa6bd2448fbfc9685e6ba27a25bd",
       "e1cf16e85fe8e370cfacdbd29077c232b7f90c10096ae6bf65654054110b0479",
       "e1cf16e85fe8e370cfacdbd29077c232b7f90c10096ae6bf65654054110b0479",
       "32d7ca76ccf3efbe723b24fe3ef8779cc4e6bacffc22d6f966570b9effca5aea",
       "32d7ca76ccf3efbe723b24fe3ef8779cc4e6bacffc22d6f966570b9effca5aea",
       "99be8daad18a83834b0d0c9d2cddb1d6b32377bf270590ddc24a3bb767e92ce4",
       "17c56dbde5486b52072ba170ec089f4a4264795c9163e56c28c2e01a00a77f23",
       "9a2095484399d8c9bc24442e774a37cbc8a74c951dc72063882d4ba7bdb6b7c9",
       "b0ea636d41e3aae431943b424760f76dd9723b6b024539236751cc61b4fdea19"},
      {"3d9c356c526a20e5420e472c22316d7567b1ebafcf73d7892af47687cd75a945",
       "3d9c356c526a20e5420e472c22316d7567b1ebafcf73d7892af47687cd75a945",
       "5c7c65e056ac049d2456c2d229d6f9ecd12bb3a52ec11949041be9c54ada3d0f",
       "5c7c65e056ac049d2456c2d229d6f9ecd12bb3a52ec11949041be9c54ada3d0f",
       "1a8e7d6d321368e76d7d77fbc5ebbc7df3188e8386b1eef3c82fa145f35ff8a1",
       "1a8e7d6d321368e76d7d77fbc5ebbc7df3188e8386b1eef3c82fa145f35ff8a1",
       "c3eb79f2d432a525d36329fed032066428e12b41d0a061d7f53bba7da978d379",
       "c3eb79f2d432a525d36329fed032066428e12b41d0a061d7f53bba7da978d379",
       "48b67def02b9d4efdbb1a72a2fcdbc62863e3cf87a7b01ef9e623c2f5dd7a43c",
       "9ebb0f2719e4ac1ef6f4123e9669614128cafa7011381cb7a5d71076cf903de3",
       "1dcce5c592708379b75ad525fb7b33bef30aae3520186eb0bf42daae91c90220",
       "6bafdc7178ae814b8580b066586d5c42132f6ff63b073962f294969ed67202a4"},
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
