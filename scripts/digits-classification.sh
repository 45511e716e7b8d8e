#!/usr/bin/env bash
# Classification with the full-batch solver beside scikit-learn, on scikit-learn's digits (1,797
# rows, 64 features, 10 classes; seed-7 80/20 split by scripts/sklearn_digits.py): lprff at m =
# 4096, circulant, sigma 4, BITS bits (default 4; heldout at full precision), trained by
# `--solver auto` (lbfgs with l2 chosen on a seeded 10% of the training rows) and by the default
# SGD; scikit-learn's LogisticRegressionCV on full-precision RBFSampler features.
# Usage: PYTHON=/path/to/venv/bin/python scripts/digits-classification.sh [BITS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bits="${1:-4}"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$root/scripts/sklearn_digits.py" export "$work"
cd "$root"
./lprff featurize --input "$work/train.csv" --label-column digit --label-type classes \
  --standardize --sigma 4 --features 4096 --projection circulant --bits "$bits" \
  --output "$work/train.arrow" -q
./lprff featurize --input "$work/heldout.csv" --label-column digit --label-type classes \
  --like "$work/train.arrow" --bits 32 --output "$work/heldout.arrow" -q
printf '%-8s %10s %9s\n' solver "error" seconds
for solver in auto sgd; do
  ./lprff train --train "$work/train.arrow" --heldout "$work/heldout.arrow" \
      --task classification --solver "$solver" --json 2>/dev/null | tail -1 | python3 -c "
import json, sys
o = json.loads(sys.stdin.read())
print('%-8s %10.4f %9.1f   (%s, l2 %g)' % ('$solver', o['heldout_error_rate'], o['seconds'],
      o['solver'], o['l2']))"
done
"$python" "$root/scripts/sklearn_digits.py" reference "$work"
