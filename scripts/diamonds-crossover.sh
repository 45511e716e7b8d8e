#!/usr/bin/env bash
# Where `lprff train`'s auto solver should switch from the closed form to CG for regression
# (ClosedFormRidge.PREFERRED_MAX_FEATURES): both with the automatic l2 path (chosen on a seeded
# 10% of the training rows, refit on all), side by side at each m, on the seed-7 80/20 split of
# the shipped diamonds (target log(price), standardized, sigma 2, circulant, BITS bits, default 4;
# heldout rows at full precision). Train s is the JSON's training seconds.
# Usage: scripts/diamonds-crossover.sh [BITS] [M ...]   (default m: 1024 2048 4096)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bits="${1:-4}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/lib/diamonds_split.py" \
  "$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv" "$work" 7
cd "$root"
if grep -q avx512f /proc/cpuinfo; then flags=avx512f; else
  flags=$(grep -o -m1 'avx2' /proc/cpuinfo || echo 'no avx2'); fi
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($flags, $(nproc) cores)"
printf '%6s %-12s %12s %8s %7s %9s\n' m solver "heldout MSE" l2 passes "train s"
for m in "${sizes[@]}"; do
  ./lprff featurize --input "$work/train.csv" --label-column logprice --standardize --sigma 2 \
    --features "$m" --projection circulant --bits "$bits" --output "$work/train.arrow" -q
  ./lprff featurize --input "$work/heldout.csv" --label-column logprice \
    --like "$work/train.arrow" --bits 32 --output "$work/heldout.arrow" -q
  for solver in closed-form cg; do
    json=$(./lprff train --train "$work/train.arrow" --heldout "$work/heldout.arrow" \
        --task regression --solver "$solver" --json 2>/dev/null | tail -1)
    python3 -c "
import json, sys
o = json.loads(sys.argv[1])
print('%6s %-12s %12.5f %8g %7s %9.1f' % ('$m', '$solver', o['heldout_mse'], o['l2'],
      o.get('passes', '-'), o['seconds']))" "$json"
  done
done
