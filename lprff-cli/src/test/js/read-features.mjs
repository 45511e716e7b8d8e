// Reads an lprff feature file (Arrow IPC file or stream) with apache-arrow and prints its rows,
// dequantized using only the file's metadata (DESIGN.md section 3):
//   line 1: "<rows> <features> <bits>"
//   then one line per row: "<label or -> <value 0> ... <value m-1>"
// Values are float32 numbers printed as JavaScript numbers (exact: they parse back to the same
// float). Usage: node read-features.mjs FILE
import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';

const table = tableFromIPC(readFileSync(process.argv[2]));
const meta = table.schema.metadata;
const required = (key) => {
  const value = meta.get(key);
  if (value === undefined) throw new Error(`no ${key} in the schema metadata`);
  return value;
};

const m = Number(required('lprff.features'));
const bits = Number(required('lprff.bits'));
const features = table.getChild('features');
const labels = table.getChild('label');

/** The m values of row r: float32 features as stored, or lo + code * step rounded once to float32. */
function values(r) {
  if (bits === 32) {
    return Array.from(features.get(r).toArray());
  }
  if (required('lprff.bit_order') !== 'lsb0') throw new Error('unknown lprff.bit_order');
  const lo = Math.fround(Number(required('lprff.scale.lo')));
  const step = Math.fround(Number(required('lprff.scale.step')));
  const row = features.get(r); // Uint8Array of ceil(m * bits / 8) bytes
  const mask = (1 << bits) - 1;
  const out = new Array(m);
  for (let i = 0; i < m; i++) {
    let code;
    if (bits === 16) {
      code = row[2 * i] | (row[2 * i + 1] << 8); // little-endian uint16
    } else {
      const bit = i * bits; // b in {1, 2, 4, 8} never straddles a byte
      code = (row[bit >> 3] >> (bit & 7)) & mask;
    }
    // code * step (< 2^40 significant bits) and the sum with lo are exact in double, so fround
    // rounds once, like Java's Math.fma(code, step, lo) in float.
    out[i] = Math.fround(lo + code * step);
  }
  return out;
}

const lines = [`${table.numRows} ${m} ${bits}`];
for (let r = 0; r < table.numRows; r++) {
  const label = labels ? String(labels.get(r)) : '-';
  lines.push(`${label} ${values(r).join(' ')}`);
}
process.stdout.write(lines.join('\n') + '\n');
