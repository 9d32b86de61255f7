import { describe, expect, it } from 'vitest';
import { dereverberate, solveHermitian, weightedCorrelation } from './wpe';
import { convolve, haveAudio, loadAudio, syntheticRoom } from '../quality/signals.testutil';

/** Error of `x` against `reference`, dB under the reference's energy. */
function errorDb(x: Float32Array, reference: Float32Array): number {
  let err = 0;
  let ref = 0;
  for (let i = 0; i < reference.length; i++) {
    err += (x[i]! - reference[i]!) ** 2;
    ref += reference[i]! ** 2;
  }
  return 10 * Math.log10(err / ref);
}

describe('solveHermitian', () => {
  it('solves a complex Hermitian system', () => {
    // A = [[4, 1+i], [1−i, 3]], z = [1, i]  →  b = A z = [3+i, 1+2i]
    const z = solveHermitian(
      Float64Array.from([4, 1, 1, 3]),
      Float64Array.from([0, 1, -1, 0]),
      Float64Array.from([3, 1]),
      Float64Array.from([1, 2]),
      2,
    )!;
    expect(z.re[0]).toBeCloseTo(1, 12);
    expect(z.im[0]).toBeCloseTo(0, 12);
    expect(z.re[1]).toBeCloseTo(0, 12);
    expect(z.im[1]).toBeCloseTo(1, 12);
  });

  it('refuses a matrix that is not positive definite', () => {
    expect(
      solveHermitian(
        Float64Array.from([1, 2, 2, 1]),
        new Float64Array(4),
        Float64Array.from([1, 1]),
        new Float64Array(2),
        2,
      ),
    ).toBeNull();
  });
});

describe('weightedCorrelation', () => {
  it.each([
    { frames: 40, taps: 5, delay: 3 },
    { frames: 60, taps: 12, delay: 3 },
    // Shorter than the filter: the upper rows have few frames or none.
    { frames: 12, taps: 10, delay: 3 },
  ])(
    'gives the weighted sums of the delayed history, term by term as the definition reads ($frames frames, $taps taps)',
    ({ frames, taps, delay }) => {
      // A deterministic complex sequence and positive weights.
      const xr = Float64Array.from({ length: frames }, (_, t) => Math.sin(0.7 * t) + 0.3 * Math.cos(2.1 * t));
      const xi = Float64Array.from({ length: frames }, (_, t) => Math.cos(0.4 * t) - 0.2 * Math.sin(1.3 * t));
      const weight = Float64Array.from({ length: frames }, (_, t) => 1 + 0.5 * Math.sin(0.9 * t));
      const out = {
        taps,
        rRe: new Float64Array(taps * taps),
        rIm: new Float64Array(taps * taps),
        pRe: new Float64Array(taps),
        pIm: new Float64Array(taps),
        qRe: new Float64Array(taps * frames),
        qIm: new Float64Array(taps * frames),
      };
      weightedCorrelation(xr, xi, weight, delay, out);
      for (let a = 0; a < taps; a++) {
        let pr = 0;
        let pi = 0;
        for (let b = a; b < taps; b++) {
          let rr = 0;
          let ri = 0;
          // x̃_a(t) · conj(x̃_b(t)) · λ_t over every frame where both exist.
          for (let t = delay + b; t < frames; t++) {
            const [ar, ai, br, bi] = [
              xr[t - delay - a]!,
              xi[t - delay - a]!,
              xr[t - delay - b]!,
              xi[t - delay - b]!,
            ];
            rr += (ar * br + ai * bi) * weight[t]!;
            ri += (ai * br - ar * bi) * weight[t]!;
          }
          expect(out.rRe[a * taps + b]).toBeCloseTo(rr, 10);
          expect(out.rIm[a * taps + b]).toBeCloseTo(ri, 10);
        }
        for (let t = delay + a; t < frames; t++) {
          const [ar, ai] = [xr[t - delay - a]!, xi[t - delay - a]!];
          pr += (ar * xr[t]! + ai * xi[t]!) * weight[t]!;
          pi += (ai * xr[t]! - ar * xi[t]!) * weight[t]!;
        }
        expect(out.pRe[a]).toBeCloseTo(pr, 10);
        expect(out.pIm[a]).toBeCloseTo(pi, 10);
      }
    },
  );
});

describe.skipIf(!haveAudio)('WPE dereverberation', () => {
  it('removes a recursive echo that its model describes exactly', async () => {
    // x[n] = s[n] + 0.6 x[n − 1536]: 1536 samples is 12 hops, so in every bin x_t = s_t + 0.6 x_{t−12}, a
    // delayed linear prediction WPE can find (taps 3…14 cover lag 12).
    const dry = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const wet = new Float32Array(dry.length);
    for (let i = 0; i < dry.length; i++) wet[i] = dry[i]! + (i >= 1536 ? 0.6 * wet[i - 1536]! : 0);
    const out = dereverberate(wet, { taps: 12, iterations: 3 });
    expect(out.pcm.length).toBe(wet.length);
    expect(errorDb(wet, dry)).toBeGreaterThan(-3);
    expect(errorDb(out.pcm, dry)).toBeLessThan(-20);
    expect(out.removedDb).toBeGreaterThan(-6);
  });

  it('brings a reverberant room nearer its direct sound and early reflections', async () => {
    const dry = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const room = syntheticRoom(0.6, 0);
    const early = convolve(dry, room.subarray(0, 480)); // the first 30 ms: what the delay keeps
    const wet = convolve(dry, room);
    const out = dereverberate(wet);
    expect(errorDb(wet, early) - errorDb(out.pcm, early)).toBeGreaterThan(1.5);
    expect(out.removedDb).toBeGreaterThan(-13);
  });

  it('leaves dry speech nearly as it is, and says it found little to remove', async () => {
    const dry = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const out = dereverberate(dry);
    expect(out.removedDb).toBeLessThan(-20);
    expect(errorDb(out.pcm, dry)).toBeLessThan(-20);
  });

  it('keeps its defaults for options given as undefined, and refuses a filter it cannot run', () => {
    const pcm = Float32Array.from({ length: 8000 }, (_, i) => Math.sin(i * 0.05) * (1 + Math.sin(i * 0.001)));
    expect(dereverberate(pcm, { taps: undefined, iterations: undefined }).pcm).toEqual(
      dereverberate(pcm).pcm,
    );
    expect(() => dereverberate(pcm, { taps: 0 })).toThrow(/taps/);
    expect(() => dereverberate(pcm, { iterations: 1.5 })).toThrow(/iterations/);
  });

  it('returns silence for silence', () => {
    const out = dereverberate(new Float32Array(8_000));
    expect(out.removedDb).toBe(-Infinity);
    expect(out.pcm.every((v) => v === 0)).toBe(true);
    expect(dereverberate(new Float32Array(0)).pcm.length).toBe(0);
  });
});
