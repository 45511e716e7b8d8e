package org.lprff.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The benchmark jar is only useful if JMH's annotation processor ran: without it the jar has no
 * {@code META-INF/BenchmarkList} and {@code java -jar benchmarks.jar} silently finds nothing.
 */
class BenchmarkListTest {

  @Test
  void everyKernelHasGeneratedBenchmarks() throws IOException {
    String list;
    try (InputStream in =
        BenchmarkListTest.class.getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
      assertNotNull(in, "META-INF/BenchmarkList missing: jmh-generator-annprocess did not run");
      list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (String benchmark :
        List.of(
            "FwhtBenchmark",
            "FftBenchmark",
            "CosineBenchmark",
            "CosineCodesBenchmark",
            "CosineQuantizersBenchmark",
            "QuantizeBenchmark",
            "PackedProductsBenchmark",
            "BlockProductsBenchmark",
            "PackedUnpackBenchmark",
            "DenseProjectionBenchmark",
            "StructuredProjectionBenchmark",
            "FeaturizerBenchmark",
            "MachineLimitsBenchmark",
            "TrainingBenchmark",
            "OnTheFlyEpochBenchmark",
            "ChecksumCostBenchmark")) {
      assertTrue(
          Pattern.compile("\\borg\\.lprff\\.bench\\." + benchmark + "\\b").matcher(list).find(),
          benchmark + " is not in the generated benchmark list");
    }
  }
}
