#!/usr/bin/env bash
# Fashion-MNIST with `lprff train`'s defaults (issue 12's target): the official 60,000 training
# rows and 10,000 test rows (the heldout set, scored once), circulant Gaussian RFFs at sigma 5
# (chosen earlier on a validation split: scripts/fashion-mnist-sigma-scan.sh), m = 8192, BITS bits;
# then `lprff train --train T --heldout H --task classification` with no other option: L-BFGS,
# l2 chosen on a seeded 10% of the training rows, refit on all of them.
# Usage: scripts/fashion-mnist-defaults.sh [BITS]   (environment: LPRFF_DATA, TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bits=${1:-4}
data=${LPRFF_DATA:-../shared/data}/fashion-mnist
[ -d "$data" ] || { echo "no Fashion-MNIST at $data (set LPRFF_DATA)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/lprff-fmnist.XXXXXX")
trap 'rm -rf "$work"' EXIT
./lprff featurize --input "$data/train-images-idx3-ubyte.gz" \
  --idx-labels "$data/train-labels-idx1-ubyte.gz" --sigma 5 --features 8192 --bits "$bits" \
  --projection circulant --seed 1 --output "$work/train.arrow" --quiet
./lprff featurize --input "$data/t10k-images-idx3-ubyte.gz" \
  --idx-labels "$data/t10k-labels-idx1-ubyte.gz" --like "$work/train.arrow" \
  --output "$work/test.arrow" --quiet
./lprff train --train "$work/train.arrow" --heldout "$work/test.arrow" --task classification \
  --json | tail -1
