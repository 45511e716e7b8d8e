package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.LinearSolverFactory_DDRM;
import org.ejml.dense.row.factory.LinearSolverFactory_MT_DDRM;
import org.ejml.interfaces.linsol.LinearSolverDense;
import org.lprff.vector.products.Cholesky;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The closed form's factorization: the Cholesky decomposition of an m x m symmetric positive
 * definite matrix (diagonally dominant, so positive definite whatever the draws: the cost does
 * not depend on the values), m^3 / 3 flops (m^3 / 6 multiply-adds), by EJML on one thread, by
 * EJML's multithreaded solver, and by the library's blocked {@link Cholesky} on the calling
 * thread alone ({@code lprffSingle}) and with the common pool ({@code lprff}: what {@code
 * NormalEquations.solve} uses). Each op copies the matrix first (m^2 doubles, negligible beside
 * m^3 / 3). {@code solve} is the forward and back substitution of one right-hand side on the
 * factor (2 m^2 flops).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
@Fork(1)
public class CholeskyBenchmark {

  @Param({"2048", "4096"})
  public int m;

  private DMatrixRMaj a;
  private DMatrixRMaj work;
  private double[] lower;
  private double[] b;
  private double[] x;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    a = new DMatrixRMaj(m, m);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < i; j++) {
        double v = random.nextDouble(-1, 1);
        a.set(i, j, v);
        a.set(j, i, v);
      }
      a.set(i, i, m);
    }
    work = new DMatrixRMaj(m, m);
    lower = a.data.clone();
    Cholesky.factor(lower, m);
    b = new double[m];
    for (int i = 0; i < m; i++) {
      b[i] = random.nextGaussian();
    }
    x = new double[m];
  }

  private boolean factor(LinearSolverDense<DMatrixRMaj> solver) {
    work.setTo(a);
    if (!solver.setA(work)) {
      throw new IllegalStateException("not positive definite");
    }
    return true;
  }

  @Benchmark
  public boolean ejml() {
    return factor(LinearSolverFactory_DDRM.chol(m));
  }

  @Benchmark
  public boolean ejmlParallel() {
    return factor(LinearSolverFactory_MT_DDRM.chol(m));
  }

  @Benchmark
  public double[] lprff() {
    System.arraycopy(a.data, 0, work.data, 0, m * m);
    Cholesky.factor(work.data, m, ForkJoinPool.commonPool());
    return work.data;
  }

  @Benchmark
  public double[] lprffSingle() {
    System.arraycopy(a.data, 0, work.data, 0, m * m);
    Cholesky.factor(work.data, m, null);
    return work.data;
  }

  /** O(m^2): timed over many calls (one shot would time the interpreter). */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 3, time = 1)
  public double[] solve() {
    System.arraycopy(b, 0, x, 0, m);
    Cholesky.solve(lower, m, x);
    return x;
  }
}
