#!/usr/bin/env bash
# The README's "bytes per row on disk" table: featurizes the first 10,000 rows of diamonds at
# m = 4096 for every b with ./lprff and reads the file sizes back with `lprff info --json`.
# Usage: scripts/bytes-per-row.sh [path/to/diamonds.csv]   (default: the copy shipped in lprff-cli)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${1:-$root/lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv}"
if [ ! -f "$data" ]; then
  echo "bytes-per-row: no diamonds.csv at $data (pass its path as the first argument)" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
head -n 10001 "$data" > "$work/rows.csv"
echo "| b | bytes per row (file size / rows) | features row | vs float32 |"
echo "|---:|---:|---:|---:|"
float_bytes=""
for bits in 32 16 8 4 2 1; do
  "$root/lprff" featurize --quiet --input "$work/rows.csv" --label-column last --kernel gaussian \
    --sigma 3 --features 4096 --bits "$bits" --projection circulant --seed 1 \
    --output "$work/b$bits.arrow"
  json="$("$root/lprff" info --json "$work/b$bits.arrow")"
  read -r size rows row <<< "$(printf '%s' "$json" | /usr/bin/python3 -c \
    'import json,sys; j=json.load(sys.stdin); print(j["file_size"], j["rows"], j["bytes_per_row"])')"
  per_row=$(awk -v s="$size" -v r="$rows" 'BEGIN { printf "%.1f", s / r }')
  float_bytes="${float_bytes:-$per_row}"
  ratio=$(awk -v f="$float_bytes" -v p="$per_row" 'BEGIN { printf "%.1fx smaller", f / p }')
  [ "$bits" = 32 ] && ratio="1x"
  echo "| $bits | $per_row | $row | $ratio |"
  rm -f "$work/b$bits.arrow"
done
