#!/usr/bin/env bash
# The README's solver table: `lprff train` with its defaults and with every --solver at l2 1e-6,
# on one diamonds split, side by side (train s: the JSON's training seconds; wall s: the command).
# Diamonds (shipped in lprff-cli) shuffled with seed 7, 80% train / 20% heldout, target log(price);
# features standardized on the training rows, Gaussian kernel sigma 2, m = 4096, circulant, at
# BITS bits (default 4; the heldout file at full precision, as predict sees rows), lambda 1e-6.
# With scikit-learn importable (PYTHON, default python3), its full-precision Ridge on RBFSampler
# features of the same split is the last row (scripts/sklearn_diamonds_solvers.py).
# Usage: scripts/diamonds-solvers.sh [BITS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bits="${1:-4}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/lib/diamonds_split.py" \
  "$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv" "$work" 7
cd "$root"
./lprff featurize --input "$work/train.csv" --label-column logprice --standardize --sigma 2 \
  --features 4096 --projection circulant --bits "$bits" --output "$work/train.arrow" -q
./lprff featurize --input "$work/heldout.csv" --label-column logprice --like "$work/train.arrow" \
  --bits 32 --output "$work/heldout.arrow" -q
# The vector width the kernels run at follows the CPU: 512-bit with avx512f, else 256-bit.
if grep -q avx512f /proc/cpuinfo; then echo "cpu: avx512f ($(nproc) cores)"; else
  echo "cpu: $(grep -o -m1 'avx2' /proc/cpuinfo || echo 'no avx2') ($(nproc) cores)"; fi
printf '%-22s %12s %11s %7s %9s %7s\n' solver "heldout MSE" iterations passes "train s" "wall s"
# "default": `lprff train` with no option but the files and the task (cg, l2 chosen on a seeded
# 10% of the training rows, refit on all); then each solver at l2 1e-6.
for run in default sgd lbfgs cg closed-form; do
  if [ "$run" = default ]; then args=(); else args=(--solver "$run" --l2 1e-6); fi
  t0=$(date +%s.%N)
  json=$(./lprff train --train "$work/train.arrow" --heldout "$work/heldout.arrow" \
      --task regression "${args[@]}" --json 2>/dev/null | tail -1)
  t1=$(date +%s.%N)
  python3 -c "
import json, sys
o = json.loads(sys.argv[1])
name = '$run' if '$run' != 'default' else 'default (%s, l2 %g)' % (o['solver'], o['l2'])
print('%-22s %12.5f %11s %7s %9.1f %7.1f' % (name, o['heldout_mse'], o.get('epochs'),
      o.get('passes', '-'), o['seconds'], $t1 - $t0))" "$json"
done
python="${PYTHON:-python3}"
if "$python" -c 'import sklearn' 2>/dev/null; then
  "$python" "$root/scripts/sklearn_diamonds_solvers.py" "$work/train.csv" "$work/heldout.csv"
fi
