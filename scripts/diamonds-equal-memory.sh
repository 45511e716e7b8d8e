#!/usr/bin/env bash
# The LP-RFF trade on diamonds, with `lprff train`'s defaults (l2 chosen on a seeded 10% of the
# training rows, refit on all): 4-bit against float32 features at equal m (4096) and at equal
# feature memory (4-bit at 8x the features, m = 32768: the same bytes per row as float32 at
# 4096), on SPLITS seeded 80/20 splits of the shipped diamonds (seeds 1..SPLITS, target
# log(price), standardized on the training rows, Gaussian kernel sigma 2, circulant; heldout rows
# at full precision, as predict sees them). One row per split and configuration: heldout MSE, the
# l2 the defaults chose, the passes and the training seconds (the JSON's), then the means.
# Usage: scripts/diamonds-equal-memory.sh [SPLITS]   (default 5; about 4 minutes per split on 2
# cores, most of it the m = 32768 runs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
splits="${1:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
if grep -q avx512f /proc/cpuinfo; then flags=avx512f; else
  flags=$(grep -o -m1 'avx2' /proc/cpuinfo || echo 'no avx2'); fi
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($flags, $(nproc) cores)"
printf '%-6s %-22s %12s %8s %7s %9s\n' split features "heldout MSE" l2 passes "train s"
results="$work/results.tsv"
for seed in $(seq 1 "$splits"); do
  python3 "$root/scripts/lib/diamonds_split.py" \
    "$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv" "$work" "$seed"
  for config in "4 4096" "32 4096" "4 32768"; do
    read -r bits m <<< "$config"
    ./lprff featurize --input "$work/train.csv" --label-column logprice --standardize --sigma 2 \
      --features "$m" --projection circulant --bits "$bits" --output "$work/train.arrow" -q
    ./lprff featurize --input "$work/heldout.csv" --label-column logprice \
      --like "$work/train.arrow" --bits 32 --output "$work/heldout.arrow" -q
    json=$(./lprff train --train "$work/train.arrow" --heldout "$work/heldout.arrow" \
        --task regression --json 2>/dev/null | tail -1)
    python3 -c "
import json, sys
o = json.loads(sys.argv[1])
name = ('float32' if '$bits' == '32' else '$bits-bit') + ', m = $m'
print('%-6s %-22s %12.5f %8g %7d %9.1f' % ('$seed', name, o['heldout_mse'], o['l2'],
      o['passes'], o['seconds']))
print('$bits\t$m\t%r\t%r' % (o['heldout_mse'], o['seconds']), file=open('$results', 'a'))
" "$json"
  done
done
python3 - "$results" <<'PY'
import collections, sys
acc = collections.defaultdict(list)
for line in open(sys.argv[1]):
    bits, m, mse, s = line.split("\t")
    acc[(bits, m)].append((float(mse), float(s)))
print()
print("%-22s %12s %9s" % ("mean over splits", "heldout MSE", "train s"))
for (bits, m), v in acc.items():
    name = ("float32" if bits == "32" else bits + "-bit") + ", m = " + m
    print("%-22s %12.5f %9.1f" % (name, sum(x for x, _ in v) / len(v),
                                  sum(y for _, y in v) / len(v)))
PY
