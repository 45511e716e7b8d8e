package org.lprff.vector.products;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CholeskyBody;

/**
 * The Cholesky factorization A = L L^T of a symmetric positive definite m x m matrix, row-major,
 * in place on its lower triangle (the entries above the diagonal are neither read nor written),
 * and the solve of L L^T x = b: the closed form's normal equations.
 *
 * <p>Right-looking and blocked: each step factors {@value #BLOCK} columns (their diagonal block,
 * then the panel below it, L21 = A21 L11^-T), then subtracts L21 L21^T from the trailing matrix,
 * the m^3 / 3 flops, in register tiles (see {@link CholeskyBody}). The panel and the update run in
 * tasks of {@value #TASK_ROWS} rows on an executor and the calling thread; the task whose rows
 * hold the next diagonal block factors it as soon as it has updated them. Each entry is computed
 * by one task in the order {@link CholeskyBody} fixes, so the bits depend neither on the threads
 * nor on the body (scalar or vector).
 */
public final class Cholesky {

  private static final CholeskyBody BODY = VectorizationProvider.get().cholesky();

  /**
   * Columns per step: the update's operand panel (w x 2 vectors, 8 KiB at 4 lanes) stays in L1,
   * and each entry of the trailing matrix is read and written once per {@value} columns, 16 flops
   * per byte moved, so that m = 4096 (128 MiB) runs from memory near the FMA peak.
   */
  public static final int BLOCK = 128;

  /** Rows per task: a multiple of every body's 2 packed groups (32 rows on 8 double lanes). */
  static final int TASK_ROWS = 128;

  private Cholesky() {}

  /** {@link #factor(double[], int, Executor)} on the common pool and the calling thread. */
  public static void factor(double[] a, int m) {
    factor(a, m, ForkJoinPool.commonPool());
  }

  /**
   * Replaces the lower triangle of the row-major m x m {@code a} (symmetric, its lower triangle
   * read) with L, A = L L^T; tasks on {@code executor} and the calling thread (null: serial). The
   * bits do not depend on the executor.
   *
   * @throws IllegalArgumentException if a is null or shorter than m x m, m is negative, or A is not
   *     positive definite: naming the first pivot that is not > 0 and its value (the lower
   *     triangle is then partly factored)
   */
  public static void factor(double[] a, int m, Executor executor) {
    check(a, m, "a");
    int pivot = factorWith(BODY, a, m, BLOCK, executor);
    if (pivot >= 0) {
      throw new IllegalArgumentException("the " + m + " x " + m
          + " matrix is not positive definite: pivot " + pivot + " is " + a[pivot * m + pivot]
          + " after eliminating the columns before it, expected > 0");
    }
  }

  /**
   * Solves A x = b, L L^T x = b with L from {@link #factor}, in place: {@code b} becomes x. A
   * forward, then a back substitution, O(m^2).
   *
   * @throws IllegalArgumentException if l is null or shorter than m x m, or b is null or shorter
   *     than m
   */
  public static void solve(double[] l, int m, double[] b) {
    check(l, m, "l");
    if (b == null || b.length < m) {
      throw new IllegalArgumentException(
          "b has " + (b == null ? "no" : b.length) + " entries, expected at least m = " + m);
    }
    solveWith(BODY, l, m, b);
  }

  /**
   * Solves L L^T X = B in place for c right-hand sides ({@code x}, m x c row-major: B, then X),
   * in groups of {@link CholeskyBody#COLUMNS} columns on {@code executor} and the caller (null:
   * serial): each group reads every row of L once for all its columns. A column's arithmetic is
   * the same in any group, body or thread, so the bits are too.
   */
  public static void solve(double[] l, int m, double[] x, int c, Executor executor) {
    check(l, m, "l");
    if (c < 1) {
      throw new IllegalArgumentException("c is " + c + ", expected >= 1");
    }
    if (x == null || x.length < (long) m * c) {
      throw new IllegalArgumentException("x has " + (x == null ? "no" : x.length)
          + " entries, expected at least m x c = " + (long) m * c);
    }
    int w = CholeskyBody.COLUMNS;
    ParallelTasks.run((c + w - 1) / w, executor, t -> {
      int j0 = t * w;
      int n = Math.min(w, c - j0);
      double[] y = new double[m * w]; // the group's columns, zero past c: solved, then dropped
      for (int i = 0; i < m; i++) {
        System.arraycopy(x, i * c + j0, y, i * w, n);
      }
      BODY.solveColumns(l, m, y);
      for (int i = 0; i < m; i++) {
        System.arraycopy(y, i * w, x, i * c + j0, n);
      }
    });
  }

  private static void check(double[] a, int m, String name) {
    if (m < 0) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 0");
    }
    if (a == null || a.length < (long) m * m) {
      throw new IllegalArgumentException(name + " has " + (a == null ? "no" : a.length)
          + " entries, expected at least m x m = " + (long) m * m);
    }
  }

  /**
   * The factorization on {@code body} with {@code block} columns per step (tests and jmh, not
   * API): -1, or the first pivot that is not > 0.
   */
  static int factorWith(CholeskyBody body, double[] a, int m, int block, Executor executor) {
    assert block <= TASK_ROWS;
    int panelRows = (Math.max(0, m - block) + TASK_ROWS - 1) / TASK_ROWS * TASK_ROWS;
    double[] p = new double[panelRows * block];
    int[] pivot = {CholeskyBody.factorDiagonal(a, m, 0, Math.min(block, m))};
    for (int k0 = 0; pivot[0] < 0 && k0 + block < m; k0 += block) {
      int from = k0;
      int w = block;
      int next = k0 + w;
      int tasks = (m - next + TASK_ROWS - 1) / TASK_ROWS;
      ParallelTasks.run(tasks, executor,
          t -> body.solvePanel(a, m, from, w, p, t * TASK_ROWS, (t + 1) * TASK_ROWS));
      // Task 0 holds the next diagonal block: updated and factored first, while the other tasks
      // update, so its serial factorization leaves no core idle. Then the costly tasks (rows
      // reaching the furthest columns) first, so the tail balances.
      ParallelTasks.run(tasks, executor, t -> {
        int r = t == 0 ? 0 : (tasks - t) * TASK_ROWS;
        body.updateTrailing(a, m, from, w, p, r, r + TASK_ROWS);
        if (t == 0) {
          pivot[0] = CholeskyBody.factorDiagonal(a, m, next, Math.min(block, m - next));
        }
      });
    }
    return pivot[0];
  }

  /** The solve on {@code body} (tests, not API). */
  static void solveWith(CholeskyBody body, double[] l, int m, double[] b) {
    body.forward(l, m, b);
    body.backward(l, m, b);
  }
}
