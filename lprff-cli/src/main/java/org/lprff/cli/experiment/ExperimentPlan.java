package org.lprff.cli.experiment;

import java.util.ArrayList;
import java.util.List;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.workflow.MethodRuns.Method;
import org.lprff.vector.codec.BitWidths;
import org.lprff.vector.codec.Quantizer;

/**
 * What an experiment runs: the methods of the LP-RFF paper's Figures 3-5 over a range of m, each
 * at every seed. Full-precision RFF (dense and circulant, b = 32), LP-RFF (circulant) at every
 * {@link #lowBits} with each of {@link #quantizers} that can code them (stochastic and nearest by
 * default; {@link #skipped} names the pairs left out), and Nyström.
 *
 * @param name "quick" or "full"
 * @param features the m of the random-features methods, ascending
 * @param landmarks Nyström's landmark counts, ascending
 * @param lowBits the bits of LP-RFF
 * @param quantizers the quantizers of LP-RFF, in the order given
 * @param selectionFeatures the m of the full-precision circulant features that choose σ and λ
 *     (at most the largest of {@code features})
 * @param sigmaFactors σ's candidates as multiples of the median distance between training rows
 * @param kernelRows the heldout subsample of the kernel metrics
 * @param maxTrainRows the training rows used at most (a seeded subset when there are more), 0 for
 *     all
 */
public record ExperimentPlan(
    String name, List<Integer> features, List<Integer> landmarks, List<Integer> lowBits,
    List<Quantizer> quantizers, int selectionFeatures, List<Double> sigmaFactors, int kernelRows,
    int maxTrainRows) {

  /** The projection of LP-RFF and of the circulant full-precision baseline. */
  public static final String LOW_PRECISION_PROJECTION = "circulant";

  /** Candidates of σ around the median heuristic, a factor of 2 apart. */
  static final List<Double> SIGMA_FACTORS = List.of(0.125, 0.25, 0.5, 1.0, 2.0);

  /** The paper's quantizer and the biased baseline it is compared with. */
  static final List<Quantizer> QUANTIZERS = List.of(Quantizer.STOCHASTIC, Quantizer.NEAREST);

  /** Minutes on 2 cores: a look at every figure (20,000 training rows at most). */
  public static ExperimentPlan quick() {
    return new ExperimentPlan("quick", List.of(128, 512, 2048), List.of(128, 512, 1024),
        List.of(1, 2, 4, 8, 16), QUANTIZERS, 1024, SIGMA_FACTORS, 1000, 20_000);
  }

  /** The README's runs: m from 256 to 4096, every training row. */
  public static ExperimentPlan full() {
    return new ExperimentPlan("full", List.of(256, 512, 1024, 2048, 4096),
        List.of(256, 512, 1024, 2048), List.of(1, 2, 4, 8, 16), QUANTIZERS, 2048, SIGMA_FACTORS,
        1000, 0);
  }

  /**
   * This plan with other lists (null keeps this plan's), each checked: m >= 1, landmarks >= 1,
   * bits among 1, 2, 4, 8, 16; quantizers that can each code one of the bits, a Sigma-Delta
   * block dividing every m; kernel rows 2 to {@value #MAX_KERNEL_ROWS} (0 keeps this plan's).
   */
  public ExperimentPlan with(List<Integer> newFeatures, List<Integer> newLandmarks,
      List<Integer> newBits, List<Quantizer> newQuantizers, int newKernelRows) {
    List<Integer> f = newFeatures == null ? features : sortedDistinct(newFeatures, "--features", 1);
    List<Integer> l = newLandmarks == null ? landmarks
        : sortedDistinct(newLandmarks, "--nystrom", 0);
    List<Integer> b = newBits == null ? lowBits : sortedDistinct(newBits, "--bits", 1);
    for (int bits : b) {
      try {
        BitWidths.checkCodes("--bits", bits);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage() + " (full precision always runs)");
      }
    }
    List<Quantizer> q = newQuantizers == null ? quantizers : List.copyOf(newQuantizers);
    if (q.isEmpty()) {
      throw new UsageException("--quantizer is empty");
    }
    for (Quantizer quantizer : q) {
      if (quantizer instanceof Quantizer.SigmaDelta sd) {
        List<Integer> odd = f.stream().filter(m -> m % sd.block() != 0).toList();
        if (!odd.isEmpty()) {
          throw new UsageException("--quantizer has " + sd.spelling() + ", whose block "
              + sd.block() + " does not divide m = " + odd + " of --features " + f
              + " (give a block that divides every m)");
        }
      }
      if (b.stream().noneMatch(quantizer::codes)) {
        throw new UsageException("--quantizer has " + quantizer.spelling() + ", which codes"
            + " none of --bits " + b + ": " + refusal(quantizer, b.getFirst()));
      }
    }
    int k = newKernelRows == 0 ? kernelRows : newKernelRows;
    if (k < 2 || k > MAX_KERNEL_ROWS) {
      throw new UsageException("--kernel-rows is " + k + ", expected 2 to "
          + MAX_KERNEL_ROWS + " (the subsample's n x n matrices)");
    }
    // σ and λ are chosen at the plan's m, or at the largest m asked for if that is smaller.
    return new ExperimentPlan(name, f, l, b, q, Math.min(selectionFeatures, f.getLast()),
        sigmaFactors, k, maxTrainRows);
  }

  /** Why {@code quantizer} cannot code b bits (the one check's message), null if it can. */
  private static String refusal(Quantizer quantizer, int bits) {
    try {
      BitWidths.checkCodes("bits", bits, quantizer);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /**
   * The (quantizer, b) pairs of LP-RFF this plan leaves out because the quantizer cannot code b,
   * e.g. "lloyd-max at b in [16], sigma-delta:2:8 at b in [1, 16]"; empty if none.
   */
  public String skipped() {
    List<String> pairs = new ArrayList<>();
    for (Quantizer q : quantizers) {
      List<Integer> left = lowBits.stream().filter(b -> !q.codes(b)).toList();
      if (!left.isEmpty()) {
        pairs.add(q.spelling() + " at b in " + left);
      }
    }
    return String.join(", ", pairs);
  }

  /** Why {@link #skipped} pairs are left out, for the progress and summary.md. */
  public static final String SKIP_REASON = BitWidths.QUANTIZER_RULE;

  /** Largest kernel subsample: n x n double matrices, several at once (4096: 128 MiB each). */
  public static final int MAX_KERNEL_ROWS = 4096;

  private static List<Integer> sortedDistinct(List<Integer> values, String option, int min) {
    for (int v : values) {
      if (v < Math.max(1, min)) {
        throw new UsageException(option + " has " + v
            + ", expected >= 1");
      }
    }
    if (values.isEmpty() && min > 0) {
      throw new UsageException(option + " is empty");
    }
    return values.stream().distinct().sorted().toList();
  }

  /** This plan without Nyström landmark counts above {@code rows} (landmarks are rows). */
  public ExperimentPlan landmarksUpTo(int rows) {
    return new ExperimentPlan(name, features,
        landmarks.stream().filter(m -> m <= rows).toList(), lowBits, quantizers,
        selectionFeatures, sigmaFactors, kernelRows, maxTrainRows);
  }

  /** A method and the seed it runs at. */
  public record Planned(Method method, long seed) {

    /** The runs.csv key this run will have. */
    public RunRecord.Key key() {
      return new RunRecord.Key(family(method), method.nystrom() ? "" : method.projection(),
          quantizerName(method), method.m(), method.bits(), seed);
    }
  }

  /**
   * Every run, seed after seed (so that an interrupted run has whole seeds first), and within a
   * seed m ascending, Nyström last.
   */
  public List<Planned> runs(int seeds) {
    List<Planned> runs = new ArrayList<>();
    for (long seed = 1; seed <= seeds; seed++) {
      for (int m : features) {
        runs.add(new Planned(new Method("dense", Quantizer.STOCHASTIC, 32, m), seed));
        runs.add(new Planned(
            new Method(LOW_PRECISION_PROJECTION, Quantizer.STOCHASTIC, 32, m), seed));
        for (Quantizer q : quantizers) {
          for (int b : lowBits) {
            if (!q.codes(b)) {
              continue; // skipped(): the plan says so once
            }
            runs.add(new Planned(new Method(LOW_PRECISION_PROJECTION, q, b, m), seed));
          }
        }
      }
      for (int m : landmarks) {
        runs.add(new Planned(Method.nystrom(m), seed));
      }
    }
    return runs;
  }

  /** {@link RunRecord#RFF}, {@link RunRecord#LP_RFF} or {@link RunRecord#NYSTROM}. */
  static String family(Method method) {
    return method.nystrom() ? RunRecord.NYSTROM
        : method.bits() == 32 ? RunRecord.RFF : RunRecord.LP_RFF;
  }

  /**
   * The quantizer's spelling for LP-RFF ({@code sigma-delta:1:4}: two Sigma-Delta configurations
   * are two runs), {@link RunRecord#NONE} otherwise.
   */
  static String quantizerName(Method method) {
    return method.nystrom() || method.bits() == 32 ? RunRecord.NONE
        : method.quantizer().spelling();
  }
}
