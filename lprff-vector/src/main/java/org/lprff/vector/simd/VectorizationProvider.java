package org.lprff.vector.simd;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.lprff.vector.simd.panama.VectorCholesky;
import org.lprff.vector.simd.panama.VectorCosine;
import org.lprff.vector.simd.panama.VectorCosineCodes;
import org.lprff.vector.simd.panama.VectorCounterRng;
import org.lprff.vector.simd.panama.VectorDenseProjection;
import org.lprff.vector.simd.panama.VectorFft;
import org.lprff.vector.simd.panama.VectorFwht;
import org.lprff.vector.simd.panama.VectorGram;
import org.lprff.vector.simd.panama.VectorInterleaved;
import org.lprff.vector.simd.panama.VectorProducts;
import org.lprff.vector.simd.panama.VectorRounding;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.panama.VectorUnpack;
import org.lprff.vector.simd.scalar.ScalarCholesky;
import org.lprff.vector.simd.scalar.ScalarCosine;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.scalar.ScalarCounterRng;
import org.lprff.vector.simd.scalar.ScalarDenseProjection;
import org.lprff.vector.simd.scalar.ScalarFft;
import org.lprff.vector.simd.scalar.ScalarFwht;
import org.lprff.vector.simd.scalar.ScalarGram;
import org.lprff.vector.simd.scalar.ScalarInterleaved;
import org.lprff.vector.simd.scalar.ScalarProducts;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.scalar.ScalarUnpack;
import org.lprff.vector.simd.spi.Body;
import org.lprff.vector.simd.spi.CholeskyBody;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.DenseProjectionBody;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.simd.spi.FwhtBody;
import org.lprff.vector.simd.spi.GramBody;
import org.lprff.vector.simd.spi.InterleavedBody;
import org.lprff.vector.simd.spi.ProductsBody;
import org.lprff.vector.simd.spi.RoundingBody;
import org.lprff.vector.simd.spi.UnpackBody;

/**
 * The one place that chooses, once per JVM, between the scalar and the Vector API implementation
 * of every compute body (after Lucene's {@code VectorizationProvider}); the facades of the layers
 * above ({@code Fwht}, {@code CounterRng}, {@code StochasticRounding}, ...) take their bodies
 * from {@link #get()}.
 *
 * <p>One criterion for every body: the vector bodies run when module {@code
 * jdk.incubator.vector} is present and the platform's preferred vectors have at least {@value
 * #MIN_VECTOR_BITS} bits (AVX2 and wider). Narrower machines run the scalar bodies: the counter
 * generator and the rounding are defined on 8 int lanes, which 128-bit hardware would emulate
 * slowly. A fallback is logged once, saying how to get the vector bodies. The system property
 * {@value #PROPERTY} forces {@code scalar} or {@code vector}; forcing {@code vector} where the
 * module is missing is an error, not a silent fallback, so a benchmark never measures the wrong
 * body.
 */
public final class VectorizationProvider {

  /** System property that forces an implementation: {@code scalar} or {@code vector}. */
  public static final String PROPERTY = "lprff.vectorization";

  /** Width of the preferred vectors, in bits, from which the vector bodies run. */
  public static final int MIN_VECTOR_BITS = 256;

  private static final VectorizationProvider INSTANCE = lookup(System.getProperty(PROPERTY));

  private final Implementation implementation;
  private final FwhtBody fwht;
  private final FftBody fft;
  private final InterleavedBody interleaved;
  private final CosineBody cosine;
  private final CosineCodesBody cosineCodes;
  private final CounterRngBody counterRng;
  private final RoundingBody rounding;
  private final UnpackBody unpack;
  private final ProductsBody products;
  private final DenseProjectionBody denseProjection;
  private final GramBody gram;
  private final CholeskyBody cholesky;

  private VectorizationProvider(Implementation implementation) {
    this.implementation = implementation;
    if (implementation == Implementation.VECTOR) {
      fwht = new VectorFwht();
      fft = new VectorFft();
      interleaved = new VectorInterleaved();
      cosine = new VectorCosine();
      cosineCodes = new VectorCosineCodes();
      counterRng = new VectorCounterRng();
      rounding = new VectorRounding();
      unpack = new VectorUnpack();
      products = new VectorProducts();
      denseProjection = new VectorDenseProjection();
      gram = new VectorGram();
      cholesky = new VectorCholesky();
    } else {
      fwht = new ScalarFwht();
      fft = new ScalarFft();
      interleaved = new ScalarInterleaved(fft);
      cosine = new ScalarCosine();
      cosineCodes = new ScalarCosineCodes();
      counterRng = new ScalarCounterRng();
      rounding = new ScalarRounding();
      unpack = new ScalarUnpack();
      products = new ScalarProducts();
      denseProjection = new ScalarDenseProjection();
      gram = new ScalarGram();
      cholesky = new ScalarCholesky();
    }
  }

  /** The provider every facade of this JVM uses. */
  public static VectorizationProvider get() {
    return INSTANCE;
  }

  /** A provider of the scalar reference bodies, for tests and benchmarks that compare. */
  public static VectorizationProvider scalar() {
    return new VectorizationProvider(Implementation.SCALAR);
  }

  /**
   * A provider of the Vector API bodies whatever the vector width, for tests and benchmarks that
   * compare.
   *
   * @throws IllegalStateException when module jdk.incubator.vector is not present
   */
  public static VectorizationProvider vector() {
    requireVectorApi("a vector provider was asked for");
    return new VectorizationProvider(Implementation.VECTOR);
  }

  static VectorizationProvider lookup(String forced) {
    return new VectorizationProvider(choose(forced));
  }

  /** The implementation for a value of {@value #PROPERTY} (null or blank: the criterion). */
  static Implementation choose(String forced) {
    if (forced == null || forced.isBlank()) {
      if (!vectorApiPresent()) {
        log("module jdk.incubator.vector is not present, so lprff runs its scalar bodies;"
            + " run the JVM with --add-modules=jdk.incubator.vector for the vector bodies");
        return Implementation.SCALAR;
      }
      int bits = VectorShape.preferredBits();
      if (bits < MIN_VECTOR_BITS) {
        log("this CPU's preferred vectors have " + bits + " bits, fewer than the "
            + MIN_VECTOR_BITS + " the vector bodies are built for, so lprff runs its scalar"
            + " bodies; -D" + PROPERTY + "=vector runs the vector bodies anyway");
        return Implementation.SCALAR;
      }
      return Implementation.VECTOR;
    }
    return switch (forced.trim().toLowerCase(Locale.ROOT)) {
      case "scalar" -> Implementation.SCALAR;
      case "vector" -> {
        requireVectorApi(PROPERTY + "=vector");
        yield Implementation.VECTOR;
      }
      default ->
          throw new IllegalStateException(
              PROPERTY + " must be 'scalar' or 'vector', not '" + forced + "'");
    };
  }

  private static void requireVectorApi(String why) {
    if (!vectorApiPresent()) {
      throw new IllegalStateException(
          why + " but module jdk.incubator.vector is not present;"
              + " run the JVM with --add-modules=jdk.incubator.vector");
    }
  }

  private static boolean vectorApiPresent() {
    return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  }

  private static void log(String message) {
    System.getLogger(VectorizationProvider.class.getName()).log(Level.WARNING, message);
  }

  /** Which implementation every body of this provider runs. */
  public Implementation implementation() {
    return implementation;
  }

  /** Each body's name and the registers it runs on, in the order of the data flow. */
  public Map<String, String> bodies() {
    Map<String, Body> bodies = new LinkedHashMap<>();
    bodies.put("dense projection", denseProjection);
    bodies.put("fwht", fwht);
    bodies.put("fft", fft);
    bodies.put("interleaved", interleaved);
    bodies.put("cosine", cosine);
    bodies.put("counter rng", counterRng);
    bodies.put("rounding", rounding);
    bodies.put("cosine codes", cosineCodes);
    bodies.put("unpack", unpack);
    bodies.put("products", products);
    bodies.put("gram", gram);
    bodies.put("cholesky", cholesky);
    Map<String, String> shapes = new LinkedHashMap<>();
    bodies.forEach((name, body) -> shapes.put(name, body.shape()));
    return shapes;
  }

  /**
   * A line for logs and benchmark reports: the implementation, then the bodies grouped by the
   * registers they run on, e.g. {@code vector: dense projection, fwht, ... (FloatVector 512-bit,
   * 16 lanes); counter rng (IntVector 512-bit, 16 lanes); rounding (IntVector 256-bit, 8 lanes);
   * gram, cholesky (DoubleVector 512-bit, 8 lanes)}.
   */
  public String describe() {
    if (implementation == Implementation.SCALAR) {
      return "scalar (every body)";
    }
    Map<String, StringBuilder> byShape = new LinkedHashMap<>();
    bodies().forEach((name, shape) -> {
      StringBuilder names = byShape.computeIfAbsent(shape, s -> new StringBuilder());
      names.append(names.isEmpty() ? "" : ", ").append(name);
    });
    StringBuilder line = new StringBuilder("vector");
    String separator = ": ";
    for (Map.Entry<String, StringBuilder> group : byShape.entrySet()) {
      line.append(separator).append(group.getValue()).append(" (").append(group.getKey()).append(')');
      separator = "; ";
    }
    return line.toString();
  }

  public FwhtBody fwht() {
    return fwht;
  }

  public FftBody fft() {
    return fft;
  }

  public InterleavedBody interleaved() {
    return interleaved;
  }

  public CosineBody cosine() {
    return cosine;
  }

  public CounterRngBody counterRng() {
    return counterRng;
  }

  public RoundingBody rounding() {
    return rounding;
  }

  public CosineCodesBody cosineCodes() {
    return cosineCodes;
  }

  public UnpackBody unpack() {
    return unpack;
  }

  public ProductsBody products() {
    return products;
  }

  public DenseProjectionBody denseProjection() {
    return denseProjection;
  }

  public GramBody gram() {
    return gram;
  }

  public CholeskyBody cholesky() {
    return cholesky;
  }
}
