#!/usr/bin/env bash
# Fashion-MNIST acceptance of issue 5: softmax regression by mini-batch SGD (batch 250, the LP-RFF
# paper's early stopping) on circulant Gaussian RFFs, full precision against LP-RFFs.
#
#   * data: the official training set (60,000 rows) split into train rows 0:50000 and validation
#     rows 50000:60000 (early stopping and the choice of the best weights); the official 10,000 test
#     rows are the heldout set, scored once at the end. Pixels / 255 (IdxRowSource's default).
#   * configurations: full precision (b = 32) at m = 8192, 4 bits at m = 8192, full precision at
#     m = 2048, and for b in {1, 2, 4, 8} the largest m whose training memory (the paper's Table 1,
#     `lprff memory`) is within that of full precision at m = 2048.
#   * sigma and lr: chosen on the validation split by scripts/fashion-mnist-sigma-scan.sh.
#
# Prints one markdown table and writes it to scripts/results/fashion-mnist.md. Feature files go to a
# temporary directory (up to ~2.3 GB at once, for b = 32, m = 8192), deleted at the end.
# Usage: scripts/fashion-mnist.sh   (environment: SIGMA, LR, SEED, EPOCHS, CONFIGS, LPRFF_DATA, TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${LPRFF_DATA:-../shared/data}/fashion-mnist
[ -d "$data" ] || [ -n "${LPRFF_DATA:-}" ] || data=../../shared/data/fashion-mnist
[ -d "$data" ] || { echo "no Fashion-MNIST at $data (set LPRFF_DATA)" >&2; exit 1; }
sigma=${SIGMA:-5}
lr=${LR:-64}
seed=${SEED:-1}
epochs=${EPOCHS:-100}
out=scripts/results/fashion-mnist.md
work=$(mktemp -d "${TMPDIR:-/tmp}/lprff-fmnist.XXXXXX")
trap 'rm -rf "$work"' EXIT
train_images=$data/train-images-idx3-ubyte.gz
train_labels=$data/train-labels-idx1-ubyte.gz
test_images=$data/t10k-images-idx3-ubyte.gz
test_labels=$data/t10k-labels-idx1-ubyte.gz

now() { date +%s.%N; }
json_field() { sed -E "s/.*\"$1\":([^,}]*).*/\\1/" <<<"$2"; }

# Full precision at m = 2048 sets the memory budget of the memory-matched models.
budget=$(json_field total_bits "$(./lprff memory --projection circulant --input-dim 784 \
  --features 2048 --bits 32 --batch 250 --classes 10 --json)")
matched() {
  json_field features "$(./lprff memory --projection circulant --input-dim 784 --budget "$budget" \
    --bits "$1" --batch 250 --classes 10 --json)"
}

# name:bits:m
configs=${CONFIGS:-"fp-8192:32:8192 lp4-8192:4:8192 fp-2048:32:2048
  matched-b1:1:$(matched 1) matched-b2:2:$(matched 2) matched-b4:4:$(matched 4)
  matched-b8:8:$(matched 8)"}

rows=()
for config in $configs; do
  IFS=: read -r name bits m <<<"$config"
  echo "== $name: b = $bits, m = $m" >&2
  t0=$(now)
  ./lprff featurize --input "$train_images" --idx-labels "$train_labels" --rows 0:50000 \
    --sigma "$sigma" --features "$m" --bits "$bits" --projection circulant --seed "$seed" \
    --output "$work/train.arrow" --quiet
  ./lprff featurize --input "$train_images" --idx-labels "$train_labels" --rows 50000:60000 \
    --like "$work/train.arrow" --output "$work/validation.arrow" --quiet
  ./lprff featurize --input "$test_images" --idx-labels "$test_labels" \
    --like "$work/train.arrow" --output "$work/test.arrow" --quiet
  t1=$(now)
  result=$(./lprff train --train "$work/train.arrow" --validation "$work/validation.arrow" \
    --heldout "$work/test.arrow" --task classification --classes 10 --solver sgd --lr "$lr" \
    --epochs "$epochs" --seed "$seed" --json --quiet | tail -1)
  rm -f "$work"/*.arrow
  featurize_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  row=$(printf '| %s | %s | %s | %s | %.4f | %.4f | %s | %s | %.1f |' "$name" "$bits" "$m" \
    "$(json_field total_bits "$result")" "$(json_field validation_error_rate "$result")" \
    "$(json_field heldout_error_rate "$result")" "$(json_field epochs "$result")" \
    "$featurize_s" "$(json_field seconds "$result")")
  echo "$row" >&2
  rows+=("$row")
done

{
  echo "Fashion-MNIST, softmax regression on circulant Gaussian RFFs (sigma $sigma), SGD batch 250,"
  echo "lr $lr, l2 1e-6, early stopping on the validation split (train rows 0:50000, validation"
  echo "rows 50000:60000 of the official training set; heldout = the official 10k test set), seed"
  echo "$seed, at most $epochs epochs. Memory budget (fp, m = 2048): $budget bits."
  echo
  echo "| config | bits | m | training memory (bits) | validation error | heldout error | epochs | featurize s | train s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Measured $(date -u +%Y-%m-%d) with \`scripts/fashion-mnist.sh\` on $(nproc) cores"
  echo "(shared with other work: timings are noisy). featurize s: train + validation + heldout files."
} | tee "$out"
