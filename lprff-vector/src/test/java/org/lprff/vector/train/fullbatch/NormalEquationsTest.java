package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;

class NormalEquationsTest {

  private static final int N = 1200;
  private static final int D = 4;
  private static final int M = 40;
  private static final float[] X = TrainData.gaussian(N, D, 41);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 42);

  private static NormalEquations sums(float[] x, float[] t, int n) {
    FeatureRows z = TrainData.featurize(TrainData.spec(D, M, 32, 2.0, 7), x, n);
    return ClosedFormRidge.accumulate(
        InMemoryBatches.of(z, t).ordered(), Task.REGRESSION, null, rows -> {});
  }

  private static void assertSameModel(LinearModel expected, LinearModel actual, String what) {
    double scale = 0;
    for (int i = 0; i < M; i++) {
      scale = Math.max(scale, Math.abs(expected.weight(i, 0)));
    }
    // Both solve in double from sums that differ only in their grouping (~1e-16 relative); the
    // models store float (6e-8 relative): 1e-6 of the largest weight, as in ClosedFormRidgeTest.
    for (int i = 0; i < M; i++) {
      assertEquals(expected.weight(i, 0), actual.weight(i, 0), 1e-6 * scale, what + " w" + i);
    }
    assertEquals(expected.bias(0), actual.bias(0), 1e-6 * scale, what + " bias");
  }

  /** One accumulation, several lambdas: each solve is the fit at that lambda. */
  @Test
  void solveForManyLambdasMatchesFitAtEach() {
    FeatureRows z = TrainData.featurize(TrainData.spec(D, M, 4, 2.0, 7), X, N);
    NormalEquations sums = ClosedFormRidge.accumulate(
        InMemoryBatches.of(z, T).ordered(), Task.REGRESSION, null, rows -> {});
    assertEquals(N, sums.rows());
    assertEquals(M, sums.features());
    for (double lambda : new double[] {1e-4, 1e-2, 1}) {
      LinearModel fit = ClosedFormRidge.fit(z, T, lambda);
      LinearModel solved = sums.solve(lambda);
      // the same arithmetic on the same sums: identical
      assertEquals(Arrays.toString(fit.weightsT()), Arrays.toString(solved.weightsT()));
      assertEquals(fit.bias(0), solved.bias(0), 0.0);
    }
    // a larger lambda shrinks the weights (the ridge path is monotone in ||w||)
    assertTrue(sums.solve(1).squaredNorm() < sums.solve(1e-4).squaredNorm());
  }

  /** The sums of two row sets, added, solve like the sums over their union. */
  @Test
  void plusIsTheUnionOfTheRows() {
    int half = N / 2;
    NormalEquations first = sums(Arrays.copyOf(X, half * D), Arrays.copyOf(T, half), half);
    NormalEquations second = sums(Arrays.copyOfRange(X, half * D, N * D),
        Arrays.copyOfRange(T, half, N), N - half);
    NormalEquations all = sums(X, T, N);
    NormalEquations merged = first.plus(second);
    assertEquals(N, merged.rows());
    assertSameModel(all.solve(1e-3), merged.solve(1e-3), "plus");
    // plus leaves both operands as they were
    assertSameModel(sums(Arrays.copyOf(X, half * D), Arrays.copyOf(T, half), half).solve(1e-3),
        first.solve(1e-3), "first after plus");
  }

  @Test
  void badLambdaAndMismatchedSumsAreNamed() {
    NormalEquations sums = sums(X, T, N);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sums.solve(-1));
    assertTrue(e.getMessage().contains("lambda is -1.0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> sums.solve(Double.POSITIVE_INFINITY));
    assertTrue(e.getMessage().contains("lambda is Infinity"), e.getMessage());
    FeatureRows other = TrainData.featurize(TrainData.spec(D, M + 1, 32, 2.0, 7), X, N);
    NormalEquations wider = ClosedFormRidge.accumulate(
        InMemoryBatches.of(other, T).ordered(), Task.REGRESSION, null, rows -> {});
    e = assertThrows(IllegalArgumentException.class, () -> sums.plus(wider));
    assertTrue(e.getMessage().contains("41 features") && e.getMessage().contains("40 features"),
        e.getMessage());
  }
}
