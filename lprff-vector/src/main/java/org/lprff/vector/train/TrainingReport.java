package org.lprff.vector.train;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.LearningRateProbe;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.TrainingResult;

/**
 * What {@link Trainer#run} did.
 *
 * @param task the task the labels gave (classes counted or declared)
 * @param classes 1 for regression, else the number of classes
 * @param solver the solver that ran ({@link Solver#AUTO} resolved)
 * @param l2 the l2 of the model
 * @param selectedOn the name of the rows that chose l2 or stopped SGD early: a validation source's
 *     name, or {@link Trainer#VALIDATION_SPLIT} for the seeded split of the training rows
 * @param l2Path each l2 tried, in order, with its mean loss on {@code selectedOn} (one entry, or
 *     none, when there was nothing to choose)
 * @param learningRate SGD's initial rate (given or probed); NaN for the other solvers
 * @param probedRate whether {@link LearningRateProbe} chose the rate
 * @param result the final solve: model, stop reason, iterations, passes of that solve
 * @param validation the model's loss and metric on the validation source, or null without one
 * @param trainRows the rows the final model learned from (training plus refit rows)
 * @param passes passes over training rows in all (path, refit, preparing passes, probe excluded)
 * @param seconds wall-clock seconds of the whole run
 * @param workingBytes the solver's working memory, estimated from its formula ({@link
 *     Trainer#workingBytes}): the model, solver state and one batch, never n x m
 */
public record TrainingReport(
    Task task, int classes, Solver solver, double l2, String selectedOn, Map<Double, Double> l2Path,
    double learningRate, boolean probedRate, TrainingResult result, Evaluation validation,
    long trainRows, long passes, double seconds, long workingBytes) {

  public TrainingReport {
    l2Path = Collections.unmodifiableMap(new LinkedHashMap<>(l2Path));
  }

  public LinearModel model() {
    return result.model();
  }

  public boolean diverged() {
    return result.diverged();
  }
}
