/**
 * Single-channel dereverberation by weighted prediction error (WPE; Nakatani et al., "Speech dereverberation based
 * on variance-normalized delayed linear prediction", IEEE TASLP 2010; the method nara_wpe implements). In each
 * frequency bin the late reverberation of frame t is predicted linearly from frames t − delay … t − delay − taps + 1
 * of the reverberant signal and subtracted. The prediction filter minimises the error weighted by the inverse of the
 * desired signal's power: first the input's own, then, when more iterations are asked for, the output's. The delay
 * keeps the direct sound and early reflections (which carry the speech) out of the prediction. No model, no training:
 * the filter is estimated from the chunk itself.
 */
import { istft, stft, type Spectrogram } from '../../dsp/stft';

export interface WpeOptions {
  /** STFT frame (samples at 16 kHz). 512 = 32 ms, nara_wpe's setting for 16 kHz. */
  size?: number;
  hop?: number;
  /** Prediction filter length in frames (20 frames at a 128-sample hop = 160 ms of history). */
  taps?: number;
  /** Frames skipped before the prediction starts: 3 × 8 ms keeps the direct sound and early reflections. */
  delay?: number;
  iterations?: number;
  /**
   * The desired signal's power is averaged over ±binContext bins and ±frameContext frames. One cell's |d|² is a
   * one-sample estimate whose inverse has no finite mean: unsmoothed, the few near-zero cells dominate the weighted
   * least squares and pull the filter towards zero (a recursive echo the model describes exactly: −11.4 dB error
   * after one iteration, −20.4 dB smoothed).
   */
  binContext?: number;
  frameContext?: number;
  /** Stop within the first iteration, and return the input, when it removes less than this (dB); see `dereverberate`. */
  skipBelowDb?: number;
}

export interface WpeResult {
  /** Dereverberated, or the input itself when `applied` is false. */
  pcm: Float32Array;
  /** Energy the filter removed over the input's, dB (−∞ when none): how much late reverberation it found. */
  removedDb: number;
  /** The same after the first iteration, over every 4th bin: what `skipBelowDb` is compared with. */
  firstRemovedDb: number;
  applied: boolean;
}

/** The first iteration's gate reads every 4th bin (125 Hz apart): a quarter of its work decides. */
const PROBE_STRIDE = 4;

const DEFAULTS: Required<Omit<WpeOptions, 'skipBelowDb'>> & Pick<WpeOptions, 'skipBelowDb'> = {
  size: 512,
  hop: 128,
  // 20 taps and one pass: a longer filter removes more of a room's tail than more passes of a shorter one, at less
  // cost (tuning half, the dry clips, three constructed rooms and a measured one: 10 taps × 3 passes 2587 errors,
  // 20 × 1 2523, 20 × 2 2491 at 1.9 × the cost of 20 × 1; bench/asr/README.md, "Reverberation: a longer filter").
  taps: 20,
  delay: 3,
  iterations: 1,
  binContext: 2,
  frameContext: 1,
};

/** |d|² averaged over a time-frequency box (at the edges, over what exists), bin-major like the spectrogram. */
export function smoothedPower(spec: Spectrogram, binContext: number, frameContext: number): Float64Array {
  const { bins, frames, re, im } = spec;
  const raw = new Float64Array(bins * frames);
  for (let i = 0; i < raw.length; i++) raw[i] = re[i]! * re[i]! + im[i]! * im[i]!;
  // Separable box: along frames, then along bins.
  const alongFrames = new Float64Array(raw.length);
  for (let k = 0; k < bins; k++) {
    const base = k * frames;
    for (let t = 0; t < frames; t++) {
      let sum = 0;
      const a = Math.max(0, t - frameContext);
      const b = Math.min(frames - 1, t + frameContext);
      for (let u = a; u <= b; u++) sum += raw[base + u]!;
      alongFrames[base + t] = sum / (b - a + 1);
    }
  }
  const out = new Float64Array(raw.length);
  for (let k = 0; k < bins; k++) {
    const a = Math.max(0, k - binContext);
    const b = Math.min(bins - 1, k + binContext);
    for (let t = 0; t < frames; t++) {
      let sum = 0;
      for (let j = a; j <= b; j++) sum += alongFrames[j * frames + t]!;
      out[k * frames + t] = sum / (b - a + 1);
    }
  }
  return out;
}

/**
 * WPE over a whole chunk. With `skipBelowDb`, a chunk whose first iteration removes less than that (energy removed
 * over the input's, read on every 4th bin before the other bins are done) is returned as it is: it holds little late
 * reverberation, and the rest of the work would be spent on nothing.
 */
export function dereverberate(pcm: Float32Array, options: WpeOptions = {}): WpeResult {
  const steps = wpeSteps(pcm, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** As `dereverberate`, handing the event loop back every `yieldEveryMs` of work (a 20 s chunk takes most of a second). */
export async function dereverberateAsync(
  pcm: Float32Array,
  options: WpeOptions = {},
  yieldEveryMs = 20,
): Promise<WpeResult> {
  const steps = wpeSteps(pcm, options);
  let since = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - since >= yieldEveryMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/** The method, one frequency bin per step. */
function* wpeSteps(pcm: Float32Array, options: WpeOptions): Generator<void, WpeResult> {
  // An option given as undefined keeps its default.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const { size, hop, taps, delay, iterations, binContext, frameContext, skipBelowDb } = {
    ...DEFAULTS,
    ...given,
  };
  if (!(Number.isInteger(taps) && taps > 0 && Number.isInteger(iterations) && iterations > 0))
    throw new Error(`WPE needs whole positive taps and iterations, got ${taps} and ${iterations}`);
  const spec = stft(pcm, size, hop);
  const out: Spectrogram = { ...spec, re: spec.re.slice(), im: spec.im.slice() };
  const scratch = new Workspace(taps, spec.frames);
  let firstRemovedDb = -Infinity;
  const bin = (k: number, power: Float64Array) => {
    const base = k * spec.frames;
    const end = base + spec.frames;
    predictAndSubtract(
      spec.re.subarray(base, end),
      spec.im.subarray(base, end),
      out.re.subarray(base, end),
      out.im.subarray(base, end),
      power.subarray(base, end),
      delay,
      scratch,
    );
  };
  for (let it = 0; it < iterations; it++) {
    const power = smoothedPower(out, binContext, frameContext);
    if (it > 0) {
      for (let k = 0; k < spec.bins; k++) {
        bin(k, power);
        yield;
      }
      continue;
    }
    // The first iteration does every PROBE_STRIDE-th bin first and reads the gate from those alone: most chunks
    // are dry, and for them that is all the work done.
    for (let k = 0; k < spec.bins; k += PROBE_STRIDE) {
      bin(k, power);
      yield;
    }
    firstRemovedDb = removedDb(spec, out, PROBE_STRIDE);
    if (skipBelowDb !== undefined && firstRemovedDb < skipBelowDb)
      return { pcm, removedDb: firstRemovedDb, firstRemovedDb, applied: false };
    for (let k = 0; k < spec.bins; k++) {
      if (k % PROBE_STRIDE === 0) continue;
      bin(k, power);
      yield;
    }
  }
  return { pcm: istft(out), removedDb: removedDb(spec, out, 1), firstRemovedDb, applied: true };
}

/** Energy the filter took out over the input's energy in every `stride`-th bin, dB (−∞ when nothing was taken). */
function removedDb(input: Spectrogram, output: Spectrogram, stride: number): number {
  let inputEnergy = 0;
  let removedEnergy = 0;
  for (let k = 0; k < input.bins; k += stride) {
    for (let i = k * input.frames; i < (k + 1) * input.frames; i++) {
      inputEnergy += input.re[i]! * input.re[i]! + input.im[i]! * input.im[i]!;
      const er = input.re[i]! - output.re[i]!;
      const ei = input.im[i]! - output.im[i]!;
      removedEnergy += er * er + ei * ei;
    }
  }
  return inputEnergy > 0 && removedEnergy > 0 ? 10 * Math.log10(removedEnergy / inputEnergy) : -Infinity;
}

/** Buffers reused across bins: the weighted correlation matrix and vector, and the per-frame weights. */
class Workspace {
  readonly rRe: Float64Array;
  readonly rIm: Float64Array;
  readonly pRe: Float64Array;
  readonly pIm: Float64Array;
  readonly weight: Float64Array;
  /** Lag products x[u]·conj(x[u − ℓ]), lag-major (`ℓ * frames + u`). */
  readonly qRe: Float64Array;
  readonly qIm: Float64Array;
  constructor(
    readonly taps: number,
    frames: number,
  ) {
    this.qRe = new Float64Array(taps * frames);
    this.qIm = new Float64Array(taps * frames);
    this.rRe = new Float64Array(taps * taps);
    this.rIm = new Float64Array(taps * taps);
    this.pRe = new Float64Array(taps);
    this.pIm = new Float64Array(taps);
    this.weight = new Float64Array(frames);
  }
}

/** Where `weightedCorrelation` writes: R (taps × taps, row-major), p (taps), and its lag products (taps × frames). */
export type CorrelationBuffers = Pick<Workspace, 'taps' | 'rRe' | 'rIm' | 'pRe' | 'pIm' | 'qRe' | 'qIm'>;

/**
 * The weighted normal equations' terms in one bin: R_ab = Σ_t x̃_a · conj(x̃_b) · λ_t and
 * p_a = Σ_t x̃_a · conj(x_t) · λ_t, where x̃_a = x[t − delay − a] and λ_t = weight[t]; R's upper triangle only.
 * An entry of R depends on its diagonal (the lag b − a) through one product x[u]·conj(x[u − ℓ]) per frame, the
 * same for the whole diagonal, so the lag products are formed once and each entry is a real-weighted sum of them:
 * a third of the arithmetic of forming every product for every entry. The sums run in the same order as the
 * definition's, so the result is the same.
 */
export function weightedCorrelation(
  xr: Float64Array,
  xi: Float64Array,
  weight: Float64Array,
  delay: number,
  out: CorrelationBuffers,
): void {
  const { taps, rRe, rIm, pRe, pIm, qRe, qIm } = out;
  const frames = xr.length;
  rRe.fill(0);
  rIm.fill(0);
  for (let l = 0; l < taps; l++) {
    const base = l * frames;
    for (let u = l; u < frames; u++) {
      qRe[base + u] = xr[u]! * xr[u - l]! + xi[u]! * xi[u - l]!;
      qIm[base + u] = xi[u]! * xr[u - l]! - xr[u]! * xi[u - l]!;
    }
  }
  // Entry (a, a + ℓ) sums q_ℓ(u) · λ(u + delay + a) for u = ℓ … frames − 1 − delay − a. Four neighbouring rows of
  // one diagonal share each loaded product, and their four sums run side by side.
  for (let l = 0; l < taps; l++) {
    const base = l * frames;
    const rows = taps - l;
    let a = 0;
    for (; a + 4 <= rows; a += 4) {
      const s = delay + a;
      const common = frames - 1 - (s + 3);
      // prettier-ignore
      let r0 = 0, i0 = 0, r1 = 0, i1 = 0, r2 = 0, i2 = 0, r3 = 0, i3 = 0;
      for (let u = l; u <= common; u++) {
        const qr = qRe[base + u]!;
        const qi = qIm[base + u]!;
        const w0 = weight[u + s]!;
        const w1 = weight[u + s + 1]!;
        const w2 = weight[u + s + 2]!;
        const w3 = weight[u + s + 3]!;
        r0 += qr * w0;
        i0 += qi * w0;
        r1 += qr * w1;
        i1 += qi * w1;
        r2 += qr * w2;
        i2 += qi * w2;
        r3 += qr * w3;
        i3 += qi * w3;
      }
      // The upper rows reach up to three frames further.
      for (let u = Math.max(l, common + 1); u <= frames - 1 - s; u++) {
        const qr = qRe[base + u]!;
        const qi = qIm[base + u]!;
        const w0 = weight[u + s]!;
        r0 += qr * w0;
        i0 += qi * w0;
        if (u + s + 1 < frames) {
          const w1 = weight[u + s + 1]!;
          r1 += qr * w1;
          i1 += qi * w1;
        }
        if (u + s + 2 < frames) {
          const w2 = weight[u + s + 2]!;
          r2 += qr * w2;
          i2 += qi * w2;
        }
      }
      rRe[a * taps + a + l] = r0;
      rIm[a * taps + a + l] = i0;
      rRe[(a + 1) * taps + a + 1 + l] = r1;
      rIm[(a + 1) * taps + a + 1 + l] = i1;
      rRe[(a + 2) * taps + a + 2 + l] = r2;
      rIm[(a + 2) * taps + a + 2 + l] = i2;
      rRe[(a + 3) * taps + a + 3 + l] = r3;
      rIm[(a + 3) * taps + a + 3 + l] = i3;
    }
    for (; a < rows; a++) {
      const s = delay + a;
      let sr = 0;
      let si = 0;
      for (let u = l; u <= frames - 1 - s; u++) {
        const lam = weight[u + s]!;
        sr += qRe[base + u]! * lam;
        si += qIm[base + u]! * lam;
      }
      rRe[a * taps + a + l] = sr;
      rIm[a * taps + a + l] = si;
    }
  }
  for (let a = 0; a < taps; a++) {
    // x̃_a at frame t is x[u] with u = t − delay − a.
    const shift = delay + a;
    let sr = 0;
    let si = 0;
    for (let u = 0; u <= frames - 1 - shift; u++) {
      const t = u + shift;
      const lam = weight[t]!;
      sr += (xr[u]! * xr[t]! + xi[u]! * xi[t]!) * lam;
      si += (xi[u]! * xr[t]! - xr[u]! * xi[t]!) * lam;
    }
    pRe[a] = sr;
    pIm[a] = si;
  }
}

/**
 * One WPE iteration in one bin: weights 1/λ_t from the current estimate's (smoothed) power, the weighted normal
 * equations R g = p with R = Σ x̃ x̃ᴴ / λ, p = Σ x̃ x* / λ (x̃_t the delayed history), then d = x − gᴴ x̃.
 */
function predictAndSubtract(
  xr: Float64Array,
  xi: Float64Array,
  dr: Float64Array,
  di: Float64Array,
  power: Float64Array,
  delay: number,
  w: Workspace,
): void {
  const frames = xr.length;
  let meanPower = 0;
  for (let t = 0; t < frames; t++) meanPower += power[t]!;
  meanPower /= Math.max(1, frames);
  if (meanPower === 0) return;
  // The floor keeps digital silence (power zero) from dominating the weighted least squares.
  const floor = meanPower * 1e-4;
  for (let t = 0; t < frames; t++) w.weight[t] = 1 / Math.max(power[t]!, floor);
  weightedCorrelation(xr, xi, w.weight, delay, w);
  const { taps, rRe, rIm, pRe, pIm } = w;
  for (let a = 0; a < taps; a++)
    for (let b = 0; b < a; b++) {
      rRe[a * taps + b] = rRe[b * taps + a]!;
      rIm[a * taps + b] = -rIm[b * taps + a]!;
    }
  // A little diagonal loading: a chunk of near-silence leaves R close to singular.
  let trace = 0;
  for (let a = 0; a < taps; a++) trace += rRe[a * taps + a]!;
  const loading = (trace / taps) * 1e-6 + 1e-30;
  for (let a = 0; a < taps; a++) rRe[a * taps + a]! += loading;
  const g = solveHermitian(rRe, rIm, pRe, pIm, taps);
  if (!g) return;
  for (let t = 0; t < frames; t++) {
    let er = 0;
    let ei = 0;
    const first = t - delay;
    const count = first < 0 ? 0 : Math.min(taps, first + 1);
    for (let a = 0; a < count; a++) {
      // conj(g_a) · x̃_a
      const gr = g.re[a]!;
      const gi = g.im[a]!;
      const ar = xr[first - a]!;
      const ai = xi[first - a]!;
      er += gr * ar + gi * ai;
      ei += gr * ai - gi * ar;
    }
    dr[t] = xr[t]! - er;
    di[t] = xi[t]! - ei;
  }
}

/** Solves the complex system A z = b (A Hermitian positive definite, n × n) by Cholesky; null if A is not. */
export function solveHermitian(
  aRe: Float64Array,
  aIm: Float64Array,
  bRe: Float64Array,
  bIm: Float64Array,
  n: number,
): { re: Float64Array; im: Float64Array } | null {
  // A = L Lᴴ, L lower triangular with a real positive diagonal.
  const lRe = new Float64Array(n * n);
  const lIm = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sRe = aRe[i * n + j]!;
      let sIm = aIm[i * n + j]!;
      for (let k = 0; k < j; k++) {
        // s -= L_ik · conj(L_jk)
        const xr = lRe[i * n + k]!;
        const xi = lIm[i * n + k]!;
        const yr = lRe[j * n + k]!;
        const yi = lIm[j * n + k]!;
        sRe -= xr * yr + xi * yi;
        sIm -= xi * yr - xr * yi;
      }
      if (i === j) {
        if (!(sRe > 0)) return null;
        lRe[i * n + i] = Math.sqrt(sRe);
      } else {
        const d = lRe[j * n + j]!;
        lRe[i * n + j] = sRe / d;
        lIm[i * n + j] = sIm / d;
      }
    }
  }
  // L y = b
  const yRe = new Float64Array(n);
  const yIm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sRe = bRe[i]!;
    let sIm = bIm[i]!;
    for (let k = 0; k < i; k++) {
      sRe -= lRe[i * n + k]! * yRe[k]! - lIm[i * n + k]! * yIm[k]!;
      sIm -= lRe[i * n + k]! * yIm[k]! + lIm[i * n + k]! * yRe[k]!;
    }
    const d = lRe[i * n + i]!;
    yRe[i] = sRe / d;
    yIm[i] = sIm / d;
  }
  // Lᴴ z = y
  const zRe = new Float64Array(n);
  const zIm = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sRe = yRe[i]!;
    let sIm = yIm[i]!;
    for (let k = i + 1; k < n; k++) {
      // (Lᴴ)_ik = conj(L_ki)
      const cr = lRe[k * n + i]!;
      const ci = -lIm[k * n + i]!;
      sRe -= cr * zRe[k]! - ci * zIm[k]!;
      sIm -= cr * zIm[k]! + ci * zRe[k]!;
    }
    const d = lRe[i * n + i]!;
    zRe[i] = sRe / d;
    zIm[i] = sIm / d;
  }
  return { re: zRe, im: zIm };
}
