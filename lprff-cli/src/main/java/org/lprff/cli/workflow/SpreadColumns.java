package org.lprff.cli.workflow;

import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.PredictionSpread;

/**
 * The columns {@code predict --draws} writes after a row's prediction: the library's {@link
 * PredictionSpread.Result} as CSV cells (float32 text, like the prediction), standard deviations
 * rather than variances so that every column of a row is in the prediction's units.
 */
public final class SpreadColumns {

  private SpreadColumns() {}

  /** The header cells, each after a comma: what {@link #format} appends for {@code task}. */
  public static String header(Task task) {
    return task == Task.REGRESSION
        ? ",mean,sd,lo,hi,sd_exact,sd_bound"
        : ",agreement,p_mean,p_lo,p_hi,score,score_mean,score_sd,score_lo,score_hi,"
            + "score_sd_exact,score_sd_bound";
  }

  /** Row r's cells, each after a comma. */
  public static void format(StringBuilder line, PredictionSpread.Result s, int r) {
    if (s.classification()) {
      cell(line, s.agreement()[r]);
      cell(line, s.probabilityMean()[r]);
      cell(line, s.probabilityLo()[r]);
      cell(line, s.probabilityHi()[r]);
      cell(line, s.fullPrecision()[r]);
    }
    cell(line, s.mean()[r]);
    cell(line, s.sd()[r]);
    cell(line, s.lo()[r]);
    cell(line, s.hi()[r]);
    cell(line, Math.sqrt(s.variance()[r]));
    cell(line, Math.sqrt(s.varianceBound()[r]));
  }

  private static void cell(StringBuilder line, double value) {
    line.append(',').append((float) value);
  }
}
