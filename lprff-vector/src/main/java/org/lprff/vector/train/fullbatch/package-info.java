/**
 * The full-batch solvers, to the optimum of the penalized loss: every pass reads all rows as
 * {@link org.lprff.vector.stream.Partitions} and sums them per part (a serializable {@code
 * Partitions.Pass}), so the same solvers run over a cluster's partitions; every product reads the
 * packed codes directly ({@link org.lprff.vector.products.PackedProducts}, in fixed chunks over
 * cores, {@code ChunkedProducts}, so the bits do not depend on the threads).
 *
 * <ul>
 *   <li>{@link org.lprff.vector.train.fullbatch.ClosedFormRidge}: ridge's exact minimizer, through
 *       {@link org.lprff.vector.train.fullbatch.NormalEquations}, sums accumulated once and solved
 *       for several lambdas;
 *   <li>{@link org.lprff.vector.train.fullbatch.ConjugateGradientRidge}: ridge by conjugate
 *       gradients, preconditioned by a sketch of the rows with the smallest hashed row ids ({@code
 *       SmallestKeys});
 *   <li>{@link org.lprff.vector.train.fullbatch.LbfgsSolver}: L-BFGS for every smooth loss over
 *       {@code FullBatchObjective}, one streaming pass per evaluation;
 *   <li>{@link org.lprff.vector.train.fullbatch.KitchenSinks}: Rahimi and Recht's weighted sums of
 *       random kitchen sinks, the mean loss without the l2 term but with every weight bounded by C
 *       / sqrt(2 m), for the squared, logistic, softmax and hinge losses (the squared loss up to
 *       2048 features as a box-constrained quadratic on the normal equations' sums, {@code
 *       BoundedLeastSquares}; the others by FISTA over passes).
 * </ul>
 *
 * <p>Beside the mini-batch solvers, never importing them.
 */
package org.lprff.vector.train.fullbatch;
