package org.lprff.cli.workflow;

import java.io.IOException;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.Labels;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowBatches;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.Standardization;

/**
 * The batches of a {@link RowSource} as a feature writer's raw input: standardized in place
 * when statistics are given, labels checked as class indices for {@link LabelType#CLASSES} and
 * dropped for {@link LabelType#NONE}. Row ids are the source's 0-based row numbers.
 */
public final class RowSourceBatches implements RowBatches {

  private final RowSource source;
  private final Standardization standardization;
  private final LabelType labelType;
  private final String name;
  private long rows;

  /**
   * @param source the rows, read to their end
   * @param standardization applied to every batch, or null
   * @param labelType the label column written
   * @param name the input, for messages
   */
  public RowSourceBatches(
      RowSource source, Standardization standardization, LabelType labelType, String name) {
    this.source = source;
    this.standardization = standardization;
    this.labelType = labelType;
    this.name = name;
  }

  @Override
  public RowBatch next() throws IOException {
    RowBatch batch = source.next();
    if (batch == null) {
      return null;
    }
    if (standardization != null) {
      standardization.apply(batch);
    }
    if (labelType == LabelType.CLASSES) {
      try {
        Labels.requireClassIndices(batch);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            name + ": " + e.getMessage() + " (--label-type classes; use regression for other"
                + " labels)", e);
      }
    }
    rows += batch.rows();
    return labelType == LabelType.NONE && batch.labels() != null
        ? new RowBatch(batch.values(), batch.rows(), batch.columns(), null, batch.firstRowId())
        : batch;
  }

  /** Rows handed out so far. */
  public long rows() {
    return rows;
  }
}
