package org.lprff.vector.train.minibatch;

import java.util.Locale;
import java.util.function.Consumer;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.RowFilter;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.TrainingResult;

/**
 * SGD's initial learning rate when none is given: one epoch of SGD at a fixed rate on a seeded
 * sample of at most {@value #ROWS} training rows, for rates from {@value #HIGHEST} down by factors
 * of 4, each scored by its mean loss on the sample after the epoch. The lowest loss wins; the probe
 * stops at the first rate whose loss is higher than the best so far (the loss is a U in the rate:
 * too high diverges or rattles, too low barely moves). Early stopping halves the chosen rate when
 * it is too high for the later epochs, so the probe errs high. Cost: at most {@value #CANDIDATES}
 * epochs of the sample and as many evaluations of it, about {@value #CANDIDATES} x 2 x {@value
 * #ROWS} row reads whatever the data's size.
 */
public final class LearningRateProbe {

  /** Sample rows at most. */
  public static final int ROWS = 8192;
  /** The highest candidate rate; the others are this over powers of 4. */
  public static final double HIGHEST = 256;
  static final int CANDIDATES = 8;
  /** A stream of the seed that no other seeded choice of the trainer uses. */
  private static final long STREAM = 0x5eed_9a7eL;

  private LearningRateProbe() {}

  /**
   * The rate for SGD on {@code train} (an ordered source, or one that visits its rows in the same
   * order at epoch 0 for a given seed).
   *
   * @throws IllegalArgumentException if every rate diverges (naming the lowest)
   */
  public static double choose(Task task, int features, MiniBatchSource train, double l2,
      int batchRows, long seed, Consumer<String> progress) {
    long n = train.rows();
    double fraction = n <= ROWS || n < 0 ? 1.0 : (double) ROWS / n;
    MiniBatchSource sample = fraction >= 1 ? train : RowFilter.of(train,
        i -> (RowSplit.mix64(seed ^ STREAM ^ RowSplit.mix64(i)) >>> 11) * 0x1.0p-53 < fraction);
    double best = Double.NaN;
    double bestLoss = Double.POSITIVE_INFINITY;
    double rate = HIGHEST;
    for (int k = 0; k < CANDIDATES; k++, rate /= 4) {
      TrainingResult r = SgdSolver.builder(task, features).batchSize(batchRows).l2(l2).seed(seed)
          .schedule(Schedule.fixed(1, rate)).build().train(sample, null);
      double loss = r.diverged() ? Double.POSITIVE_INFINITY
          : Evaluation.of(r.model(), task, sample, 1000).meanLoss();
      progress.accept(String.format(Locale.ROOT, "sgd: probe lr %g, sample loss %.6g", rate, loss));
      if (loss < bestLoss) {
        bestLoss = loss;
        best = rate;
      } else if (bestLoss < Double.POSITIVE_INFINITY) {
        break;
      }
    }
    if (Double.isNaN(best)) {
      throw new IllegalArgumentException("SGD diverged at every probed learning rate down to "
          + rate * 4 + "; the features or targets are out of scale");
    }
    return best;
  }
}
