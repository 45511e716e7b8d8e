#!/usr/bin/env bash
# The README's lprff-spark scaling table: diamonds repeated --copies times (default 2) in 1, 2 and
# 4 partitions of a local[2] session (--master to change): featurizing rows/s, seconds per pass of
# LpRffRegressor's L-BFGS and CG, and Spark ML's LinearRegression per iteration on the same
# features at full precision; medians of --runs runs (default 3). Prints a Markdown table.
#
#   scripts/spark-scaling.sh [--master local[N]] [--copies K] [--features M] [--runs R]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=scripts/lib/jvm.sh
. "$root/scripts/lib/jvm.sh"
# shellcheck source=scripts/lib/spark.sh
. "$root/scripts/lib/spark.sh"

run_spark_main org.lprff.spark.SparkBenchmark \
  --diamonds "$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv" "$@"
