package org.lprff.vector.train;

/** Called by {@link SgdTrainer} on its thread after every completed epoch (e.g. to print progress). */
@FunctionalInterface
public interface TrainingListener {

  TrainingListener NONE = record -> {};

  void onEpoch(EpochRecord record);
}
