/**
 * The training workflow, the top layer of the training core: {@link
 * org.lprff.vector.train.Trainer#run} takes a {@link org.lprff.vector.train.TrainingRequest}
 * (task, {@link org.lprff.vector.train.Solver}, l2 values or the automatic path, SGD's settings,
 * the {@link org.lprff.vector.train.LossKind}; every one defaulted to reach the optimum without
 * tuning) and returns a {@link org.lprff.vector.train.TrainingReport}; the command line only maps
 * its options onto it.
 *
 * <p>The training core trains linear models on LP-RFF features to the optimum of the penalized
 * loss, by full-batch solvers that stream over the b-bit packed rows (L-BFGS for every loss,
 * preconditioned conjugate gradients for ridge), in closed form for ridge regression, or by the
 * LP-RFF paper's mini-batch SGD. Its layers, from the bottom up, each importing only those below
 * it: {@link org.lprff.vector.train.loss} (the losses, the task and the objective), {@link
 * org.lprff.vector.train.model} (the linear model, its evaluation and what a solver returns),
 * {@link org.lprff.vector.train.fullbatch} and {@link org.lprff.vector.train.minibatch} (the
 * solvers, neither importing the other), and this package.
 *
 * <p><b>Data.</b> A {@link org.lprff.vector.stream.MiniBatchSource} hands out the mini-batches of an
 * epoch ({@link org.lprff.vector.stream.MiniBatch}: {@link org.lprff.vector.stream.FeatureRows},
 * packed or float32, plus labels). {@link org.lprff.vector.stream.InMemoryBatches} serves features
 * held in memory (materialized once); {@link org.lprff.vector.stream.OnTheFlyBatches} featurizes each
 * mini-batch when it is needed, with fresh rounding draws per epoch. Arrow-backed sources live in
 * lprff-arrow and implement the same interface.
 */
package org.lprff.vector.train;
