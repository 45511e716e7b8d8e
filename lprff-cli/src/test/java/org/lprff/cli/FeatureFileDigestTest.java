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
 * restructuring of issue 11), for every projection and bit width, both quantizers, three kernels
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
       "e99b10c1913811e26940a9eeebd4bd86138a13e6ef4e23bd9f1564e9a68992a9",
       "e99b10c1913811e26940a9eeebd4bd86138a13e6ef4e23bd9f1564e9a68992a9"},
      {"lap-2.arrows", "-b 2 --kernel laplacian --ipc stream",
       "e6214f8825c38a2bf846d140da749d7b35d7b03c9bf04b2df0dfc84718063237",
       "f644f61758e991ba70dfa5baf4393dabb0547ed45570ce5903a26f91bf4a02d6"},
      {"mat-8.arrow", "-b 8 --kernel matern --nu 1.5 --length-scale 2",
       "cd68f0109a9d0b057c3860eab9422b2986cbfd38b6ccada9b689c4ec9215832b",
       "e85468810b91bdc9162cf763d5816c6fc69ab61c04860d258c0148411d20cf4b"},
    };
    for (String[] p : pinned) {
      rows.add(Arguments.of(p[0], p[1], p[2], p[3]));
    }
    String[] projections = {"dense", "circulant", "fastfood", "orthogonal"};
    String[][] digests = {
      // b = 1, 2, 4, 8, 16, 32; vector then scalar
      {"d7b9fa2e9cdaf54b069744b28023f52282b645b53e49a803e3257e05270fb1dd",
       "d7b9fa2e9cdaf54b069744b28023f52282b645b53e49a803e3257e05270fb1dd",
       "d410e193f2409c09f255ca7b916545c9b59377a4ac664559ca642e6a392fc236",
       "d410e193f2409c09f255ca7b916545c9b59377a4ac664559ca642e6a392fc236",
       "4b6b2e204990829546bcd1642e811948c42304dea65916bc10677991d19fe394",
       "4b6b2e204990829546bcd1642e811948c42304dea65916bc10677991d19fe394",
       "8578f0a3e1d5ed29d963cec149eb2ab1d4291656bd287e7cf2f4b5f9004cf941",
       "2a1ceab54da1907b6e3c45b4db2bfe3ce12c007c36c6e7886a5edb602363a9a1",
       "b13d8c7a83942d2108e157c3e121fece2287390a5ed9a1b65b35ca71cad78fa2",
       "f54a0f28d0793818bfbce7917fb6f51c78aeaaea7b2c7335f32b9ff2227be50a",
       "14992c2291338578297d5f72542bc1f2dd0851146f3458a18dae01aac70c4b13",
       "03871d565d085ee94d4ea83a0ff81da15a58e60e4523d042167dc53a19111e28"},
      {"a5ed26f8b44ba10bc05cb877e9af253340e925d2b2c17ae474aff1f4da00f7c2",
       "a5ed26f8b44ba10bc05cb877e9af253340e925d2b2c17ae474aff1f4da00f7c2",
       "7ecf1088d69bced297f48148979800b8471b86c9fe627c7336dae4207e22858d",
       "7ecf1088d69bced297f48148979800b8471b86c9fe627c7336dae4207e22858d",
       "2bc35044bc01aabd22bfee7b2a06e92d60db32453b124aefaa2fb1e44322f8fd",
       "2bc35044bc01aabd22bfee7b2a06e92d60db32453b124aefaa2fb1e44322f8fd",
       "2de99c7fff5cf74316e960047cd448bb4a8870df508cf923ab2e2653b0b41daa",
       "2de99c7fff5cf74316e960047cd448bb4a8870df508cf923ab2e2653b0b41daa",
       "975df27fa6066b27959ef0c261ba6fb877ce3db1250ab734b532bbd4404b2667",
       "141310521ed12448cdb8ad5b0411fe0c77e316b0515ee201e7a616ad578f5d93",
       "ef35ae2050927f6d30d5fe976b1ebf81e929c44beb679590fe1f5bcb47f15ff0",
       "a60a1eef9d4d13f12a1fa0dee4e3fc622a61f8259817a743c1f53285a1b82738"},
      {"1547a65ac3f112a9da70f86753d44de4f909d26eb5814466de8cdb8d928a62d0",
       "1547a65ac3f112a9da70f86753d44de4f909d26eb5814466de8cdb8d928a62d0",
       "ba28d209b8a374abe1c6ac3064e185cb38772a665b0f7aadb293208869f03d80",
       "ba28d209b8a374abe1c6ac3064e185cb38772a665b0f7aadb293208869f03d80",
       "13c6cc6d5857a8d72f3ffa225258c7095d87af152a3ea28ecb4e58ae1f4843f0",
       "13c6cc6d5857a8d72f3ffa225258c7095d87af152a3ea28ecb4e58ae1f4843f0",
       "471f8b59cb02cefe1bb8f2066fb6ca4a5ede991a4f448727fea4648f6bdf1886",
       "60f557b28f80015d8e67d3d41247cb7db8358825e35b01305b4407198ef60c21",
       "77856c7dbf60348518b3df4bec5d0df8c1745d9a6a79410204365336bb215b0b",
       "29ae43ff4a865ec274bf6df295a6646a14e4981828a589006ae198871ef4cbe3",
       "b2c367204423ac61be6ec5cc71ca4143042177b3ae42b9126f5ab092a701e9a3",
       "cc375e0d3f342ea01ffb8d85a9c7efcea8317ce2f743f1d872068c7abb7736b9"},
      {"e2043bdd35550f00349d3e13e681c58fa96a4fcdd337e16849fe215aff775a29",
       "e2043bdd35550f00349d3e13e681c58fa96a4fcdd337e16849fe215aff775a29",
       "90144ea04b045524fe431ab3bb341caff2052c21b48fbdfccb3275f406790f33",
       "90144ea04b045524fe431ab3bb341caff2052c21b48fbdfccb3275f406790f33",
       "ab408d77ee01a3da02248d35df4daa896f899068c5c22995b52e043a9504ce1f",
       "ab408d77ee01a3da02248d35df4daa896f899068c5c22995b52e043a9504ce1f",
       "b78cf6ac40aa13f27ad07db5372f1bdadb92928940d6e40acf82b0f0e0e69567",
       "f0e7d37d4c05b69aac861eaeb30d57899f02447f5181f3b780661f7ab765039e",
       "2c79afbadcaea3389658547c1909d9bc51c332f46f2f1e0b77fd2827a377aa28",
       "1f408b1515796c0dc0ce668474b9549df84cd2f9035e3adbfe400db33312ce1f",
       "26a636852a0e40169556311ff0e7579a310c1b59946abc6f7fbe8425b4ff154e",
       "a0335575f0af266cba8fd5133786d4d8886a3e166ae3029b6e5697d925f02e84"},
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
