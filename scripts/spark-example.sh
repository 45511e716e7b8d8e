#!/usr/bin/env bash
# LP-RFFs on Apache Spark (lprff-spark), in local mode, end to end: Spark reads a CSV (label
# last), standardizes the inputs with the training rows' statistics, featurizes them with
# LpRffTransformer, trains LpRffRegressor or LpRffClassifier with every default (the library's
# full-batch solvers, one pass per partition, the partitions' sums added in partition order), scores the heldout
# rows and prints one JSON object as its last line of standard output.
#
#   scripts/spark-example.sh [--master local[N]] [--task regression|classification]
#                            [--train CSV --heldout CSV] [--features M] [--bits B] [--sigma S|auto]
#                            [--projection P] [--seed N] [--solver S] [--partitions P]
#                            [--model FILE.lprff] [--save-split DIR] [--write-features DIR]
#
# Defaults: --master local[2], the diamonds file shipped with the application (target log(price),
# or for --task classification the class log(price) > 8; the demo's seeded 80/20 split),
# regression, m = 2048, 4 bits, sigma 2, circulant, solver auto, partitions = the master's cores.
# --sigma auto puts LpRffBandwidth in the transformer's place: sigma chosen on a validation split
# of the training rows, as lprff fit chooses it. JSON keys: task, sigma (and sigma_search_seconds
# with auto), heldout_mse or heldout_error_rate, rows (of
# training), heldout_rows, partitions, master, features, bits, solver, l2, featurize_seconds,
# featurize_rows_per_second, train_seconds, seconds. --model writes the fitted model as a .lprff
# file (lprff predict reads it); --write-features writes DIR/{train,heldout}.arrow (feature files:
# lprff info, lprff train) and .parquet; --save-split writes the split as CSV (standardized inputs,
# label last), for the command line to featurize the same rows.
#
# Builds lprff-spark and its class path (Spark included) on first use and when a source changes.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=scripts/lib/jvm.sh
. "$root/scripts/lib/jvm.sh"

# shellcheck source=scripts/lib/spark.sh
. "$root/scripts/lib/spark.sh"

run_spark_main org.lprff.spark.SparkExample \
  --diamonds "$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv" "$@"
