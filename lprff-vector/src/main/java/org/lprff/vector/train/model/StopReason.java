package org.lprff.vector.train.model;

/** Why training stopped. */
public enum StopReason {
  /** Early stopping reached its number of halvings: the heldout loss stopped improving. */
  CONVERGED,
  /** The schedule's number of epochs ran out (always the case for fixed and decaying schedules). */
  EPOCH_CAP,
  /** A loss, score or weight became NaN or infinite (learning rate too large); see the message. */
  DIVERGED,
  /** No iterations: the model is the exact minimizer, solved in closed form ({@code ClosedFormRidge}). */
  SOLVED
}
