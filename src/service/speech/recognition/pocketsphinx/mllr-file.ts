import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The text transform `mllr_solve` writes and PocketSphinx's `-mllr` reads (ps_mllr.c): the number of
 * regression classes, the number of feature streams, then per class and stream its length n, an n×n
 * matrix A, the offset b (n values) and n variance scales. Parsed to refuse a broken transform (NaN from a
 * singular estimate, a truncated file) before it reaches a decoder.
 */
export interface MllrStream {
  a: number[][];
  b: number[];
  varianceScale: number[];
}

export interface MllrTransform {
  /** classes[c][s]: stream s of regression class c. */
  classes: MllrStream[][];
}

export function parseMllrMatrix(text: string): MllrTransform {
  const tokens = text.split(/\s+/).filter(Boolean);
  let pos = 0;
  const next = (what: string): number => {
    if (pos >= tokens.length) throw new Error(`MLLR file: truncated (expected ${what})`);
    const token = tokens[pos++]!;
    const v = Number(token);
    if (!Number.isFinite(v)) throw new Error(`MLLR file: ${what} is not a finite number: ${token}`);
    return v;
  };
  const count = (what: string): number => {
    const v = next(what);
    if (!Number.isInteger(v) || v <= 0 || v > 1000) throw new Error(`MLLR file: bad ${what}: ${v}`);
    return v;
  };
  const nClasses = count('class count');
  const nStreams = count('stream count');
  const classes: MllrStream[][] = [];
  for (let c = 0; c < nClasses; c++) {
    const streams: MllrStream[] = [];
    for (let s = 0; s < nStreams; s++) {
      const n = count('stream length');
      const a = Array.from({ length: n }, () => Array.from({ length: n }, () => next('matrix entry')));
      const b = Array.from({ length: n }, () => next('offset'));
      const varianceScale = Array.from({ length: n }, () => next('variance scale'));
      streams.push({ a, b, varianceScale });
    }
    classes.push(streams);
  }
  if (pos !== tokens.length) throw new Error(`MLLR file: ${tokens.length - pos} values after the last class`);
  return { classes };
}

/** Largest |A − I| entry and |b| entry over all streams: how far the transform moves the model. */
export function mllrDistance(t: MllrTransform): { matrix: number; offset: number } {
  let matrix = 0;
  let offset = 0;
  for (const streams of t.classes)
    for (const { a, b } of streams) {
      a.forEach((row, i) =>
        row.forEach((v, j) => (matrix = Math.max(matrix, Math.abs(v - (i === j ? 1 : 0))))),
      );
      for (const v of b) offset = Math.max(offset, Math.abs(v));
    }
  return { matrix, offset };
}

/** The identity transform (one class, A = I, b = 0, variances unscaled) for feature streams of these lengths. */
export function identityMllr(streamLengths: readonly number[]): string {
  const lines = ['1', String(streamLengths.length)];
  for (const n of streamLengths) {
    lines.push(String(n));
    for (let i = 0; i < n; i++) lines.push(Array.from({ length: n }, (_, j) => (i === j ? '1.0' : '0.0')).join(' '));
    lines.push(Array(n).fill('0.0').join(' '), Array(n).fill('1.0').join(' '));
  }
  return lines.join('\n') + '\n';
}

/**
 * The lengths of the acoustic model's feature streams, as its transforms must have them: `-svspec` in the
 * model's feat.params (`0-12/13-25/26-38` → 13, 13, 13), else one stream of 39 (13 cepstra with deltas
 * and double deltas, `1s_c_d_dd`).
 */
export function featureStreamLengths(hmmDir: string): number[] {
  let params = '';
  try {
    params = readFileSync(path.join(hmmDir, 'feat.params'), 'utf8');
  } catch {
    return [39];
  }
  const spec = /^-svspec\s+(\S+)/m.exec(params)?.[1];
  if (!spec) return [39];
  return spec.split('/').map((group) =>
    group.split(',').reduce((n, range) => {
      const [a, b = a] = range.split('-').map(Number);
      return n + (b! - a! + 1);
    }, 0),
  );
}
