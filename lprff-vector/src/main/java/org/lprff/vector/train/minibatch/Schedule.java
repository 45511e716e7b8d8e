package org.lprff.vector.train.minibatch;

import org.lprff.vector.train.model.StopReason;

/**
 * How the learning rate evolves over epochs and when training stops.
 *
 * <ul>
 *   <li>{@link #fixed}: a constant rate for a fixed number of epochs.
 *   <li>{@link #decaying}: {@code lr_e = lr / (1 + decay e)} in epoch e (0-based), constant within
 *       an epoch, for a fixed number of epochs. (A 1/t decay: with decay > 0 the rates sum to
 *       infinity while the steps' noise shrinks, so SGD converges to the minimizer.)
 *   <li>{@link #earlyStopping}: the LP-RFF paper's schedule (the reference code's progress
 *       monitor). After every epoch the heldout loss h is compared with the best so far: if h <=
 *       best, the weights become the new best; otherwise they are reverted to the best. If h >
 *       {@code threshold} x best (default 0.99: less than 1% better), the rate is halved. Training
 *       stops after {@code maxHalvings} halvings (default 10; {@link StopReason#CONVERGED}) or
 *       {@code maxEpochs} epochs ({@link StopReason#EPOCH_CAP}); the result is the best model. Needs
 *       a heldout source. One difference from the reference: the initial model (zero weights by
 *       default) is evaluated first and is the first "best", so even epoch 0 is reverted and the
 *       rate halved if it makes the heldout loss worse; the reference accepts epoch 0 whatever it
 *       does.
 * </ul>
 */
public sealed interface Schedule
    permits Schedule.Fixed, Schedule.Decaying, Schedule.EarlyStopping {

  double DEFAULT_THRESHOLD = 0.99;

  int DEFAULT_MAX_HALVINGS = 10;

  static Schedule fixed(int epochs, double learningRate) {
    return new Fixed(epochs, learningRate);
  }

  static Schedule decaying(int epochs, double learningRate, double decay) {
    return new Decaying(epochs, learningRate, decay);
  }

  static Schedule earlyStopping(int maxEpochs, double learningRate) {
    return new EarlyStopping(maxEpochs, learningRate, DEFAULT_THRESHOLD, DEFAULT_MAX_HALVINGS);
  }

  static Schedule earlyStopping(
      int maxEpochs, double learningRate, double threshold, int maxHalvings) {
    return new EarlyStopping(maxEpochs, learningRate, threshold, maxHalvings);
  }

  /** Epochs at most. */
  int maxEpochs();

  /** The rate of epoch 0. */
  double learningRate();

  record Fixed(int epochs, double learningRate) implements Schedule {
    public Fixed {
      checkEpochs("epochs", epochs);
      checkRate(learningRate);
    }

    @Override
    public int maxEpochs() {
      return epochs;
    }
  }

  record Decaying(int epochs, double learningRate, double decay) implements Schedule {
    public Decaying {
      checkEpochs("epochs", epochs);
      checkRate(learningRate);
      if (!(decay >= 0) || Double.isInfinite(decay)) {
        throw new IllegalArgumentException("decay is " + decay + ", expected a finite value >= 0");
      }
    }

    @Override
    public int maxEpochs() {
      return epochs;
    }

    /** The rate of epoch e. */
    public double rate(int epoch) {
      return learningRate / (1 + decay * epoch);
    }
  }

  record EarlyStopping(int maxEpochs, double learningRate, double threshold, int maxHalvings)
      implements Schedule {
    public EarlyStopping {
      checkEpochs("maxEpochs", maxEpochs);
      checkRate(learningRate);
      if (!(threshold > 0 && threshold <= 1)) {
        throw new IllegalArgumentException("threshold is " + threshold + ", expected in (0, 1]");
      }
      if (maxHalvings < 1) {
        throw new IllegalArgumentException("maxHalvings is " + maxHalvings + ", expected >= 1");
      }
    }
  }

  private static void checkEpochs(String name, int epochs) {
    if (epochs < 1) {
      throw new IllegalArgumentException(name + " is " + epochs + ", expected >= 1");
    }
  }

  private static void checkRate(double learningRate) {
    if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
      throw new IllegalArgumentException(
          "learning rate is " + learningRate + ", expected a finite value > 0");
    }
  }
}
