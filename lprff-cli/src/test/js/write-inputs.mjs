// Writes input tables with apache-arrow, for lprff featurize to read, and the same rows as CSV:
//   numeric.arrow  Float64 columns x0..x4 and an Int32 label column y (IPC file format)
//   list.arrow     one FixedSizeList<Float32>(5) column x and an Int32 label column y
//   rows.csv       header x0,x1,x2,x3,x4,y and the same values
// Values are multiples of 1/4 (exact in float, double and decimal). Usage: node write-inputs.mjs DIR
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Field, FixedSizeList, Float32, Int32, Table, makeVector, tableFromArrays, tableToIPC,
  vectorFromArray,
} from 'apache-arrow';

const dir = process.argv[2];
const rows = 37;
const columns = 5;
const value = (r, c) => (((r * 7 + c * 13) % 29) - 14) / 4;
const label = (r) => r % 3;

const numeric = {};
for (let c = 0; c < columns; c++) {
  numeric[`x${c}`] = Float64Array.from({ length: rows }, (_, r) => value(r, c));
}
numeric.y = Int32Array.from({ length: rows }, (_, r) => label(r));
writeFileSync(join(dir, 'numeric.arrow'), tableToIPC(tableFromArrays(numeric), 'file'));

const listType = new FixedSizeList(columns, new Field('item', new Float32(), false));
const lists = Array.from({ length: rows }, (_, r) =>
  Float32Array.from({ length: columns }, (_, c) => value(r, c)));
const listTable = new Table({
  x: vectorFromArray(lists, listType),
  y: makeVector(Int32Array.from({ length: rows }, (_, r) => label(r))),
});
writeFileSync(join(dir, 'list.arrow'), tableToIPC(listTable, 'file'));

const csv = [[...Array(columns).keys()].map((c) => `x${c}`).concat('y').join(',')];
for (let r = 0; r < rows; r++) {
  const cells = [];
  for (let c = 0; c < columns; c++) cells.push(String(value(r, c)));
  csv.push(cells.concat(String(label(r))).join(','));
}
writeFileSync(join(dir, 'rows.csv'), csv.join('\n') + '\n');
