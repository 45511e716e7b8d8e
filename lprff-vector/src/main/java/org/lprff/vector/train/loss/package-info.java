/**
 * The bottom layer of the training core: what a linear model's scores are penalized by. {@link
 * org.lprff.vector.train.loss.Loss} is a per-row loss averaged over a batch and its gradient:
 * squared {@code 0.5 (y - t)^2} (so the mean loss is half the mean squared error; reports use MSE
 * = mean (y - t)^2), binary logistic on a logit, softmax cross-entropy, and the hinge (exact or
 * smoothed); a {@link org.lprff.vector.train.loss.Task} (regression, binary, binary on the hinge,
 * k classes) says which, with the model's outputs c and the labels it reads.
 *
 * <p><b>Objective.</b> For a model with weights W (m x c, stored class-major as {@code wT[j*m +
 * i] = W[i][j]}) and bias b (c), scores {@code y_r = z_r W + b} and n training rows, the solvers
 * minimize
 *
 * <pre>  J(W, b) = (1/n) sum_r loss(y_r, label_r) + (lambda/2) ||W||_F^2</pre>
 *
 * The bias is not regularized. Rahimi and Recht's kitchen sinks minimize the mean loss without the
 * l2 term, every weight bounded instead.
 */
package org.lprff.vector.train.loss;
