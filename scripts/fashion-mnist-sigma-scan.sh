#!/usr/bin/env bash
# Chooses the Gaussian kernel's sigma and the SGD learning rate for scripts/fashion-mnist.sh
# without looking at the test set: full-precision circulant RFFs at m = 2048, seed 1, trained on
# the official training rows 0:50000 and early-stopped and scored on the validation split (training
# rows 50000:60000). Prints a markdown table of validation error (and epochs) per sigma and lr and
# writes it to scripts/results/fashion-mnist-scan.md.
# Usage: scripts/fashion-mnist-sigma-scan.sh   (SIGMAS="2.5 5" LRS="1 4" to change the grid)
set -euo pipefail
cd "$(dirname "$0")/.."
# The data folder: $LPRFF_DATA, else ../shared/data (a clone beside it) or ../../shared/data (a
# git worktree one level deeper).
data=${LPRFF_DATA:-../shared/data}/fashion-mnist
[ -d "$data" ] || [ -n "${LPRFF_DATA:-}" ] || data=../../shared/data/fashion-mnist
[ -d "$data" ] || { echo "no Fashion-MNIST at $data (set LPRFF_DATA)" >&2; exit 1; }
read -r -a sigmas <<<"${SIGMAS:-2.5 3.5 5 7.5 10}"
read -r -a lrs <<<"${LRS:-1 4 16 64 256}"
work=$(mktemp -d "${TMPDIR:-/tmp}/lprff-fmnist-scan.XXXXXX")
trap 'rm -rf "$work"' EXIT
images=$data/train-images-idx3-ubyte.gz
labels=$data/train-labels-idx1-ubyte.gz
out=scripts/results/fashion-mnist-scan.md
mkdir -p scripts/results
{
  printf '| sigma |'; for lr in "${lrs[@]}"; do printf ' lr %s |' "$lr"; done; echo
  printf '|---:|'; for lr in "${lrs[@]}"; do printf -- '---:|'; done; echo
  for s in "${sigmas[@]}"; do
    ./lprff featurize --input "$images" --idx-labels "$labels" --rows 0:50000 --sigma "$s" \
      --features 2048 --bits 32 --projection circulant --seed 1 --output "$work/t.arrow" --quiet
    ./lprff featurize --input "$images" --idx-labels "$labels" --rows 50000:60000 \
      --like "$work/t.arrow" --output "$work/v.arrow" --quiet
    printf '| %s |' "$s"
    for lr in "${lrs[@]}"; do
      if json=$(./lprff train --train "$work/t.arrow" --heldout "$work/v.arrow" \
          --task classification --classes 10 --seed 1 --solver sgd --lr "$lr" --json --quiet \
          2>/dev/null); then
        json=$(tail -1 <<<"$json")
        err=$(sed -E 's/.*"heldout_error_rate":([0-9.eE+-]+).*/\1/' <<<"$json")
        ep=$(sed -E 's/.*"epochs":([0-9]+).*/\1/' <<<"$json")
        printf ' %s (%s ep) |' "$err" "$ep"
      else
        printf ' diverged |'
      fi
    done
    echo
  done
} | tee "$out"
echo "validation error (epochs); m = 2048, b = 32, circulant, seed 1, batch 250, early stopping" \
  "on the validation split" | tee -a "$out"
