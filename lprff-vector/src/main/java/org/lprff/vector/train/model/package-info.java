/**
 * The linear model and what every solver returns, above the losses: {@link
 * org.lprff.vector.train.model.LinearModel} (weights W, m x c, class-major, and bias b; scores,
 * predictions), {@link org.lprff.vector.train.model.WorkingModel} (the weights a solver updates in
 * place), {@link org.lprff.vector.train.model.Evaluation} (a model's mean loss and metric over a
 * source or a cluster's partitions), {@link org.lprff.vector.train.model.PredictionSpread} (a
 * model's predictions over K fresh rounding draws of stochastic features: mean, sd, interval, the
 * exact variance and its bound); and a solver's outcome: {@link
 * org.lprff.vector.train.model.TrainingResult} (the model, why it stopped, the epochs or
 * iterations), its {@link org.lprff.vector.train.model.EpochRecord}s, {@link
 * org.lprff.vector.train.model.StopReason} and the {@link
 * org.lprff.vector.train.model.TrainingListener} told of each epoch.
 */
package org.lprff.vector.train.model;
