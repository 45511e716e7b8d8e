// Reads an lprff feature file (Arrow IPC file or stream) with apache-arrow and prints its rows,
// decoded using only the file's metadata (DESIGN.md section 3):
//   line 1: "<rows> <features> <bits>", features the count of values a row prints
//   then one line per row: "<label or -> <value 0> ... <value n-1>"
// Values are float32 numbers printed as JavaScript numbers (exact: they parse back to the same
// float). The quantizer (lprff.quantizer) says how codes decode: on the grid lo + code * step
// (lprff.scale.lo, lprff.scale.step) or, for lloyd-max, through lprff.codebook; sigma-delta's m
// values are then condensed to m / block features (lprff.condensation), unless --uncondensed.
// Usage: node read-features.mjs FILE [--uncondensed]
import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';

const table = tableFromIPC(readFileSync(process.argv[2]));
const uncondensed = process.argv[3] === '--uncondensed';
const meta = table.schema.metadata;
const required = (key) => {
  const value = meta.get(key);
  if (value === undefined) throw new Error(`no ${key} in the schema metadata`);
  return value;
};
/** count float32 numbers of a comma-separated value (Java's Float.toString of each). */
const floats = (key, count) => {
  const items = required(key).split(',').map((item) => Math.fround(Number(item)));
  if (items.length !== count || items.some((x) => !Number.isFinite(x))) {
    throw new Error(`${key} is '${required(key)}', expected ${count} numbers`);
  }
  return items;
};

const m = Number(required('lprff.features'));
const bits = Number(required('lprff.bits'));
const quantizer = required('lprff.quantizer');
const features = table.getChild('features');
const labels = table.getChild('label');

/** The value of each of the 2^b codes: lloyd-max's codebook, or the grid lo + code * step. */
function levels() {
  if (required('lprff.bit_order') !== 'lsb0') throw new Error('unknown lprff.bit_order');
  if (quantizer === 'lloyd-max') {
    if (meta.has('lprff.scale.lo')) throw new Error('lloyd-max with a grid (lprff.scale.lo)');
    return floats('lprff.codebook', 2 ** bits);
  }
  const lo = Math.fround(Number(required('lprff.scale.lo')));
  const step = Math.fround(Number(required('lprff.scale.step')));
  // code * step (< 2^40 significant bits) and the sum with lo are exact in double, so fround
  // rounds once, like Java's Math.fma(code, step, lo) in float.
  return Array.from({ length: 2 ** bits }, (_, code) => Math.fround(lo + code * step));
}
const table32 = bits === 32 ? null : levels();

/** The m values of row r: float32 features as stored, or the levels of its codes. */
function values(r) {
  if (bits === 32) {
    return Array.from(features.get(r).toArray());
  }
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
    out[i] = table32[code];
  }
  return out;
}

/**
 * Java's Math.fma(a, b, c) on floats: a * b + c rounded once to float32. a * b is exact in double;
 * s = a * b + c rounded to double and its error e (TwoSum: s + e is exact) round to float32 as the
 * exact sum does unless s lies exactly halfway between two floats (each such midpoint is a double
 * and |e| <= ulp(s) / 2): then e, if not 0, says which of the two.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The float32 next to float32 x, above it (up) or below it. */
function nextFloat(x, up) {
  if (x === 0) return up ? 2 ** -149 : -(2 ** -149);
  f32[0] = x;
  u32[0] += (x > 0) === up ? 1 : -1;
  return f32[0];
}
function fma32(a, b, c) {
  const p = a * b;
  const s = p + c;
  const t = s - p;
  const e = (p - (s - t)) + (c - t);
  const r = Math.fround(s);
  if (r === s || e === 0) return r;
  const other = nextFloat(r, s > r);
  if (s - r !== other - s) return r; // not halfway: e does not change the rounding
  return (e > 0) === (other > r) ? other : r;
}

/** Sigma-Delta: feature k = sum_i u_i v[k block + i], Java's float32 fma chain in i order. */
function condense(v) {
  const block = Number(required('lprff.quantizer.block'));
  const u = floats('lprff.condensation', block);
  if (m % block !== 0) throw new Error(`lprff.features ${m} is not a multiple of ${block}`);
  const out = new Array(m / block);
  for (let k = 0; k < out.length; k++) {
    let sum = 0;
    for (let i = 0; i < block; i++) {
      sum = fma32(u[i], v[k * block + i], sum);
    }
    out[k] = sum;
  }
  return out;
}

const condensed = quantizer === 'sigma-delta' && !uncondensed;
const width = condensed ? m / Number(required('lprff.quantizer.block')) : m;
const lines = [`${table.numRows} ${width} ${bits}`];
for (let r = 0; r < table.numRows; r++) {
  const label = labels ? String(labels.get(r)) : '-';
  lines.push(`${label} ${(condensed ? condense(values(r)) : values(r)).join(' ')}`);
}
process.stdout.write(lines.join('\n') + '\n');
