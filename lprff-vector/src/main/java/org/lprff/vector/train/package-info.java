/**
 * The training core: linear models on LP-RFF features, trained to the optimum of the penalized
 * loss by full-batch solvers that stream over the b-bit packed rows (L-BFGS for every loss,
 * preconditioned conjugate gradients for ridge), by the LP-RFF paper's mini-batch SGD, or in closed
 * form for ridge regression; every product reads the packed codes directly ({@link
 * org.lprff.vector.products.PackedProducts}).
 *
 * <p><b>Workflow.</b> {@link org.lprff.vector.train.Trainer#run} takes a {@link
 * org.lprff.vector.train.TrainingRequest} (task, solver, l2 values or the automatic path, SGD's
 * settings; every one defaulted to reach the optimum without tuning) and returns a {@link
 * org.lprff.vector.train.TrainingReport}; the command line only maps its options onto it.
 *
 * <p><b>Objective.</b> For a model with weights W (m x c, stored class-major as {@code wT[j*m +
 * i] = W[i][j]}) and bias b (c), scores {@code y_r = z_r W + b} and n training rows,
 *
 * <pre>  J(W, b) = (1/n) sum_r loss(y_r, label_r) + (lambda/2) ||W||_F^2</pre>
 *
 * with the per-row losses of {@link org.lprff.vector.train.Loss}: squared {@code 0.5 (y - t)^2}
 * (so the mean loss is half the mean squared error; reports use MSE = mean (y - t)^2), binary
 * logistic on a logit, softmax cross-entropy. The bias is not regularized. {@link
 * org.lprff.vector.train.SgdSolver} descends J; {@link org.lprff.vector.train.ClosedFormRidge}
 * returns its exact minimizer for the squared loss, through {@link
 * org.lprff.vector.train.NormalEquations}, sums accumulated once and solved for several lambdas.
 * {@link org.lprff.vector.train.KitchenSinks} ({@code Solver.RKS}) minimizes the mean loss
 * without the l2 term but with every weight bounded by C / sqrt(2 m) (Rahimi and Recht's
 * weighted sums of random kitchen sinks), for the squared, logistic, softmax and {@link
 * org.lprff.vector.train.HingeLoss hinge} losses (the squared loss up to 2048 features as a
 * box-constrained quadratic on the normal equations' sums, the others by FISTA over passes).
 *
 * <p><b>Data.</b> A {@link org.lprff.vector.stream.MiniBatchSource} hands out the mini-batches of an
 * epoch ({@link org.lprff.vector.stream.MiniBatch}: {@link org.lprff.vector.stream.FeatureRows},
 * packed or float32, plus labels). {@link org.lprff.vector.stream.InMemoryBatches} serves features
 * held in memory (materialized once); {@link org.lprff.vector.stream.OnTheFlyBatches} featurizes each
 * mini-batch when it is needed, with fresh rounding draws per epoch. Arrow-backed sources live in
 * lprff-arrow and implement the same interface.
 */
package org.lprff.vector.train;

