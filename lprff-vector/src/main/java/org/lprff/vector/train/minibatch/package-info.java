/**
 * The mini-batch solvers, stepping over shuffled mini-batches of one {@link
 * org.lprff.vector.stream.MiniBatchSource} with a learning rate and one l2: the LP-RFF paper's SGD
 * ({@link org.lprff.vector.train.minibatch.SgdSolver}) and LM-HALP ({@link
 * org.lprff.vector.train.minibatch.HalpSolver}: SVRG with bit centering, the model offset and
 * gradient differences at b bits and the anchor and full gradient at 2b bits in {@link
 * org.lprff.vector.train.minibatch.LowPrecisionVector}s). They share the epoch loop ({@code
 * ScheduledEpochs}: early stopping, divergence, the best model kept), the builders' settings
 * ({@link org.lprff.vector.train.minibatch.MiniBatchSettings}) and the learning-rate {@link
 * org.lprff.vector.train.minibatch.Schedule}s; {@link
 * org.lprff.vector.train.minibatch.LearningRateProbe} finds an initial rate when none is given.
 *
 * <p>Beside the full-batch solvers, never importing them.
 */
package org.lprff.vector.train.minibatch;
