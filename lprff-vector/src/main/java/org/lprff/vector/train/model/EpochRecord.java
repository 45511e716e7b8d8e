package org.lprff.vector.train.model;

/**
 * What happened in one epoch.
 *
 * @param epoch the epoch, 0-based (also the rounding draw of on-the-fly sources)
 * @param trainLoss the mean per-row loss over the epoch's mini-batches, each taken before its
 *     step (so with weights that move during the epoch), without the L2 term
 * @param heldoutLoss the mean per-row loss on the heldout set after the epoch, without the L2 term;
 *     NaN when there is no heldout set
 * @param heldoutMetric the heldout MSE (regression) or error rate (classification); NaN without a
 *     heldout set
 * @param learningRate the rate used in this epoch
 * @param seconds wall-clock seconds of the epoch, evaluation included
 * @param improved whether the heldout loss was the best so far (early stopping keeps these
 *     weights)
 * @param halved whether early stopping halved the rate after this epoch
 */
public record EpochRecord(
    int epoch,
    double trainLoss,
    double heldoutLoss,
    double heldoutMetric,
    double learningRate,
    double seconds,
    boolean improved,
    boolean halved) {

  public boolean hasHeldout() {
    return !Double.isNaN(heldoutLoss);
  }
}
