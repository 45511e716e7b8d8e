// Scores a full-precision lprff feature file (b = 32, e.g. featurize --like train.arrow --bits 32)
// with an lprff model file (.lprff), both read with apache-arrow only, as a Python or R user
// would: score_j(z) = z . weights_j + bias_j, in double. Prints one line per row: the scores of
// outputs 0..c-1. Usage: node score-with-model.mjs MODEL FEATURES
import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';

const model = tableFromIPC(readFileSync(process.argv[2]));
const data = tableFromIPC(readFileSync(process.argv[3]));
const meta = (t, key) => {
  const value = t.schema.metadata.get(key);
  if (value === undefined) throw new Error(`no ${key} in the schema metadata`);
  return value;
};
for (const key of ['lprff.kernel', 'lprff.features', 'lprff.projection', 'lprff.seed']) {
  if (meta(model, key) !== meta(data, key)) {
    throw new Error(`${key}: model ${meta(model, key)}, features ${meta(data, key)}`);
  }
}
if (meta(data, 'lprff.bits') !== '32') throw new Error('expected full-precision features');

const m = Number(meta(model, 'lprff.features'));
const outputs = model.numRows;
const weights = [];
const bias = [];
for (let j = 0; j < outputs; j++) {
  if (model.getChild('output').get(j) !== j) throw new Error(`row ${j} is not output ${j}`);
  weights.push(model.getChild('weights').get(j).toArray());
  bias.push(model.getChild('bias').get(j));
}
const features = data.getChild('features');
const lines = [];
for (let r = 0; r < data.numRows; r++) {
  const z = features.get(r).toArray();
  if (z.length !== m) throw new Error(`row ${r} has ${z.length} features, expected ${m}`);
  const scores = [];
  for (let j = 0; j < outputs; j++) {
    let s = bias[j];
    for (let i = 0; i < m; i++) s += weights[j][i] * z[i];
    scores.push(s);
  }
  lines.push(scores.join(' '));
}
process.stdout.write(lines.join('\n') + '\n');
