package org.lprff.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import org.lprff.vector.simd.VectorizationProvider;

/**
 * What the report's header names: the CPU (model, cores and its SIMD flags), the preferred
 * vector species for float and int, the bodies the library chose, the JDK, and the thread count
 * of the parallel benchmarks.
 *
 * @param cpuFlags every flag of /proc/cpuinfo (results.json); {@link #simdFlags} the SIMD ones
 */
public record MachineInfo(
    String cpuModel, int cores, List<String> cpuFlags, String floatSpecies, int floatLanes,
    String intSpecies, int intLanes, String vectorization, String jdk, String os, int threads) {

  /** The flags the kernels' speed depends on, in this order. */
  private static final List<String> SIMD = List.of(
      "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
      "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "asimd", "sve", "sve2");

  /** This JVM's machine, with {@code threads} threads for the parallel benchmarks. */
  public static MachineInfo detect(int threads) {
    String model = System.getProperty("os.arch");
    List<String> flags = List.of();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String key = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        if (key.equals("model name") && model.equals(System.getProperty("os.arch"))) {
          model = value;
        } else if ((key.equals("flags") || key.equals("Features")) && flags.isEmpty()) {
          flags = List.of(value.split("\\s+"));
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: the model stays the architecture and the flags unknown.
    }
    return new MachineInfo(
        model, Runtime.getRuntime().availableProcessors(), flags,
        FloatVector.SPECIES_PREFERRED.toString(), FloatVector.SPECIES_PREFERRED.length(),
        IntVector.SPECIES_PREFERRED.toString(), IntVector.SPECIES_PREFERRED.length(),
        VectorizationProvider.get().describe(),
        System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
            + Runtime.version(),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + System.getProperty("os.arch"),
        threads);
  }

  /** The SIMD flags among {@link #cpuFlags}, in a fixed order. */
  public List<String> simdFlags() {
    Set<String> have = Set.copyOf(cpuFlags);
    List<String> out = new ArrayList<>();
    for (String f : SIMD) {
      if (have.contains(f)) {
        out.add(f);
      }
    }
    return out;
  }
}
