import { dctMatrix } from './dct';
import { createFeatureMatrix, type FeatureMatrix } from './features';
import { frameCount, readFrame } from './framing';
import { applyFilterbank, melFilterbank } from './mel';
import { createPowerSpectrum } from './spectrum';
import { hammingWindow } from './window';

export interface MfccOptions {
  sampleRate?: number;
  /** Analysis window in samples (default 400 = 25 ms at 16 kHz). */
  frameLength?: number;
  /** Step between frames in samples (default 160 = 10 ms at 16 kHz). */
  hop?: number;
  fftSize?: number;
  melBands?: number;
  /** Cepstra kept, c0 … c(n−1). */
  coefficients?: number;
  lowHz?: number;
  highHz?: number;
  preEmphasis?: number;
}

export interface MfccResult {
  /** Cepstra c0 … c(n−1) per frame. */
  mfcc: FeatureMatrix;
  /** Natural log of each frame's energy (after pre-emphasis and windowing), for energy VAD and weighting. */
  logEnergy: Float32Array;
  /** Seconds between frames. */
  hopSeconds: number;
}

/** Floor under mel energies and frame energy so silence gives finite logs. */
const ENERGY_FLOOR = 1e-10;

/** MFCCs of a whole signal, frame by frame; only the features are kept, never the frames. */
export function computeMfcc(signal: Float32Array, options: MfccOptions = {}): MfccResult {
  const sampleRate = options.sampleRate ?? 16_000;
  const frameLength = options.frameLength ?? Math.round(0.025 * sampleRate);
  const hop = options.hop ?? Math.round(0.01 * sampleRate);
  let fftSize = options.fftSize ?? 1;
  while (fftSize < frameLength) fftSize *= 2;
  const melBands = options.melBands ?? 26;
  const coefficients = options.coefficients ?? 20;
  const preEmphasis = options.preEmphasis ?? 0.97;
  const filters = melFilterbank(
    melBands,
    fftSize,
    sampleRate,
    options.lowHz ?? 20,
    options.highHz ?? sampleRate / 2,
  );
  const dct = dctMatrix(coefficients, melBands);
  const window = hammingWindow(frameLength);
  const power = createPowerSpectrum(fftSize);

  const frames = frameCount(signal.length, frameLength, hop);
  const mfcc = createFeatureMatrix(frames, coefficients);
  const logEnergy = new Float32Array(frames);
  const frame = new Float32Array(fftSize);
  const spectrum = new Float64Array(fftSize / 2 + 1);
  const mel = new Float64Array(melBands);
  for (let i = 0; i < frames; i++) {
    readFrame(signal, i, hop, window, preEmphasis, frame);
    let energy = 0;
    for (let k = 0; k < frameLength; k++) energy += frame[k]! * frame[k]!;
    logEnergy[i] = Math.log(Math.max(energy, ENERGY_FLOOR));
    power(frame, spectrum);
    applyFilterbank(filters, spectrum, mel);
    for (let m = 0; m < melBands; m++) mel[m] = Math.log(Math.max(mel[m]!, ENERGY_FLOOR));
    for (let c = 0; c < coefficients; c++) {
      const row = dct[c]!;
      let acc = 0;
      for (let m = 0; m < melBands; m++) acc += row[m]! * mel[m]!;
      mfcc.data[i * coefficients + c] = acc;
    }
  }
  return { mfcc, logEnergy, hopSeconds: hop / sampleRate };
}
