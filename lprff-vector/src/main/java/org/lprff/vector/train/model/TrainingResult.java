package org.lprff.vector.train.model;

import java.util.List;

/**
 * The outcome of training: what every solver returns.
 *
 * @param model the final model: the best one for early stopping, the last one otherwise, and on
 *     divergence the last good one (never a model with NaN or infinite weights)
 * @param stopReason why training stopped
 * @param message a sentence for people; for {@link StopReason#DIVERGED} it names the epoch, step
 *     and learning rate
 * @param epochs epochs run (completed, plus the diverging one)
 * @param steps SGD steps taken
 * @param halvings learning-rate halvings (early stopping)
 * @param bestEpoch the epoch whose weights {@code model} holds: for early stopping the best
 *     epoch, for fixed and decaying schedules the last completed one; -1 for the initial model
 * @param bestHeldoutLoss the heldout loss of {@code model} when measured (NaN otherwise)
 * @param finalLearningRate the rate at the end
 * @param history one record per completed epoch
 */
public record TrainingResult(
    LinearModel model,
    StopReason stopReason,
    String message,
    int epochs,
    long steps,
    int halvings,
    int bestEpoch,
    double bestHeldoutLoss,
    double finalLearningRate,
    List<EpochRecord> history) {

  public TrainingResult {
    history = List.copyOf(history);
  }

  /**
   * The result of a closed-form solve ({@code ClosedFormRidge}): no epochs or steps, {@link
   * StopReason#SOLVED}, the rate NaN (there is none).
   *
   * @param heldoutLoss the heldout loss of the model, or NaN if not measured
   */
  public static TrainingResult solved(LinearModel model, double heldoutLoss) {
    return new TrainingResult(model, StopReason.SOLVED, "solved the normal equations in closed form",
        0, 0, 0, -1, heldoutLoss, Double.NaN, List.of());
  }

  public boolean diverged() {
    return stopReason == StopReason.DIVERGED;
  }
}
