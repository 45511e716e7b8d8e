#!/usr/bin/env bash
# Classification with the full-batch solver beside scikit-learn, on scikit-learn's digits (1,797
# rows, 64 features, 10 classes; seed-7 80/20 split by scripts/sklearn_digits.py): lprff at m =
# 4096, circulant, sigma 4, BITS bits (default 4; heldout at full precision), trained by
# `lprff train`'s defaults (lbfgs with l2 chosen on a seeded 10% of the training rows) and by
# `--solver sgd` (rate probed); scikit-learn's LogisticRegressionCV on full-precision RBFSampler features.
# Usage: PYTHON=/path/to/venv/bin/python scripts/digits-classification.sh [BITS]
# (REFERENCE and LABEL name another data set's scikit-learn script and label column: see
# scripts/multiclass26.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bits="${1:-4}"
reference="$root/scripts/${REFERENCE:-sklearn_digits.py}"
label="${LABEL:-digit}"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$reference" export "$work"
cd "$root"
./lprff featurize --input "$work/train.csv" --label-column "$label" --label-type classes \
  --standardize --sigma 4 --features 4096 --projection circulant --bits "$bits" \
  --output "$work/train.arrow" -q
./lprff featurize --input "$work/heldout.csv" --label-column "$label" --label-type classes \
  --like "$work/train.arrow" --bits 32 --output "$work/heldout.arrow" -q
printf '%-8s %10s %9s %7s\n' solver "error" "train s" "wall s"
for run in default sgd; do
  if [ "$run" = default ]; then args=(); else args=(--solver "$run"); fi
  t0=$(date +%s.%N)
  json=$(./lprff train --train "$work/train.arrow" --heldout "$work/heldout.arrow" \
      --task classification "${args[@]}" --json 2>/dev/null | tail -1)
  t1=$(date +%s.%N)
  python3 -c "
import json, sys
o = json.loads(sys.argv[1])
print('%-8s %10.4f %9.1f %7.1f   (%s, l2 %g, lr %s)' % ('$run', o['heldout_error_rate'],
      o['seconds'], $t1 - $t0, o['solver'], o['l2'], o.get('lr')))" "$json"
done
"$python" "$reference" reference "$work"
