import { describe, expect, it } from 'vitest';
import { dereverberate, solveHermitian } from './wpe';
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

describe.skipIf(!haveAudio)('WPE dereverberation', () => {
  it('removes a recursive echo that its model describes exactly', async () => {
    // x[n] = s[n] + 0.6 x[n − 1536]: 1536 samples is 12 hops, so in every bin x_t = s_t + 0.6 x_{t−12}, a
    // delayed linear prediction WPE can find (taps 3…14 cover lag 12).
    const dry = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const wet = new Float32Array(dry.length);
    for (let i = 0; i < dry.length; i++) wet[i] = dry[i]! + (i >= 1536 ? 0.6 * wet[i - 1536]! : 0);
    const out = dereverberate(wet, { taps: 12 });
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

  it('returns silence for silence', () => {
    const out = dereverberate(new Float32Array(8_000));
    expect(out.removedDb).toBe(-Infinity);
    expect(out.pcm.every((v) => v === 0)).toBe(true);
    expect(dereverberate(new Float32Array(0)).pcm.length).toBe(0);
  });
});
