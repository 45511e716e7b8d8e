#!/usr/bin/env bash
# The featurizer table of the README (issue 3): FeaturizerBenchmark for d in {9, 90, 784},
# m in {1024, 8192}, b in {1, 4, 8, 32}, every projection, one thread and all cores, with
# scikit-learn's RBFSampler (float32, Debian python3-sklearn) timed right before and after in the
# same run. About 25 minutes on 2 cores. Output: jmh/target/featurizer-table.md
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
python=/usr/bin/python3
if ! "$python" -c 'import sklearn' 2>/dev/null; then
  echo "featurizer-vs-sklearn: $python cannot import sklearn; install Debian's python3-sklearn" >&2
  exit 1
fi
out=jmh/target
mkdir -p "$out"
reference() {
  "$python" jmh/scripts/sklearn_rbf.py > "$out/sklearn-$1.jsonl"
  OPENBLAS_NUM_THREADS=1 "$python" jmh/scripts/sklearn_rbf.py >> "$out/sklearn-$1.jsonl"
}
reference before
./mvnw -q -P bench -pl jmh -am verify -DskipTests -Djmh.args="FeaturizerBenchmark.fused \
  -p d=9,90,784 -p m=1024,8192 -p bits=1,4,8,32 -p projection=dense,circulant,fastfood,orthogonal \
  -f 1 -wi 2 -w 1 -i 3 -r 1 -rf json -rff target/featurizer.json"
reference after
"$python" jmh/scripts/featurizer_table.py "$out/featurizer.json" \
  "$out/sklearn-before.jsonl" "$out/sklearn-after.jsonl" | tee "$out/featurizer-table.md"
