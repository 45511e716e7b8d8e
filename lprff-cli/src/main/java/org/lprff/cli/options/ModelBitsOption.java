package org.lprff.cli.options;

import org.lprff.vector.train.minibatch.HalpSolver;
import picocli.CommandLine.Option;

/**
 * {@code --model-bits}: the bits of a model weight. A mixin of {@code memory} (Table 1's model at
 * 32 bits, or LM-HALP's 8 or 16) and, through {@link SolverOptions}, of {@code train}, {@code
 * demo} and {@code compare} ({@code --solver halp}'s model, 8 or 16).
 */
public final class ModelBitsOption {

  // No defaultValue: a value given to a solver other than halp is refused rather than ignored.
  @Option(
      names = "--model-bits",
      paramLabel = "B",
      description = "Bits of a model weight: 8 or 16 for --solver halp (LM-HALP; default 8, the"
          + " anchor and the full gradient at twice that); memory also takes 32, the float model"
          + " of the other solvers (memory's default).")
  public Integer bits;

  /** --solver halp's bits: 8 or 16, default 8. */
  public int halp() {
    if (bits != null && bits != 8 && bits != 16) {
      throw new UsageException("--model-bits is " + bits + ", expected 8 or 16");
    }
    return bits == null ? HalpSolver.DEFAULT_MODEL_BITS : bits;
  }

  /** memory's bits: 8, 16 or 32, default 32. */
  public int memory() {
    if (bits != null && bits != 8 && bits != 16 && bits != 32) {
      throw new UsageException("--model-bits is " + bits + ", expected 8, 16 or 32");
    }
    return bits == null ? 32 : bits;
  }
}
