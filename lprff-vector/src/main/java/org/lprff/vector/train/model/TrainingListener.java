package org.lprff.vector.train.model;

/**
 * Called by an iterative solver on its thread after every completed epoch (mini-batch SGD, LM-HALP)
 * or iteration (L-BFGS, conjugate gradients), e.g. to print progress.
 */
@FunctionalInterface
public interface TrainingListener {

  TrainingListener NONE = record -> {};

  void onEpoch(EpochRecord record);
}
