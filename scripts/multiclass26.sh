#!/usr/bin/env bash
# Issue 12's held-back tabular shape (16 features, 26 classes) on a synthetic stand-in
# (scripts/sklearn_multiclass26.py: make_classification, 20,000 rows, seed-7 80/20 split):
# lprff at m = 4096, circulant, sigma 4, BITS bits (default 4; heldout at full precision),
# trained by `lprff train`'s defaults (lbfgs, l2 chosen on a seeded 10% of the training rows)
# and by `--solver sgd` (rate probed); scikit-learn's lbfgs LogisticRegression on full-precision
# RBFSampler features with the same l2 protocol.
# Usage: PYTHON=/path/to/venv/bin/python scripts/multiclass26.sh [BITS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bits="${1:-4}"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$root/scripts/sklearn_multiclass26.py" export "$work"
cd "$root"
./lprff featurize --input "$work/train.csv" --label-column label --label-type classes \
  --standardize --sigma 4 --features 4096 --projection circulant --bits "$bits" \
  --output "$work/train.arrow" -q
./lprff featurize --input "$work/heldout.csv" --label-column label --label-type classes \
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
"$python" "$root/scripts/sklearn_multiclass26.py" reference "$work"
