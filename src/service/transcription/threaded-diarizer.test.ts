import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE } from '../speech/types';
import { ThreadedDiarizer } from './threaded-diarizer';

/** Two alternating "voices" (different harmonic stacks) in 4 s turns, with a little noise. */
function alternatingVoices(seconds: number): Float32Array {
  const pcm = new Float32Array(seconds * SAMPLE_RATE);
  let seed = 1;
  for (let i = 0; i < pcm.length; i++) {
    const t = i / SAMPLE_RATE;
    const f0 = Math.floor(t / 4) % 2 === 0 ? 120 : 210;
    let x = 0;
    for (let h = 1; h <= 6; h++) x += Math.sin(2 * Math.PI * f0 * h * t) / h;
    seed = (seed * 1103515245 + 12345) % 2147483648;
    pcm[i] = 0.2 * x + 0.01 * (seed / 2147483648 - 0.5);
  }
  return pcm;
}

describe('ThreadedDiarizer', () => {
  it('diarizes on a worker thread', async () => {
    const result = await new ThreadedDiarizer().diarize(alternatingVoices(32), [{ start: 0, end: 32 }]);
    expect(result.turns.length).toBeGreaterThan(1);
    expect(new Set(result.turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
  });

  it('stops when its signal is aborted, rejecting with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    // Five minutes of audio keep the thread busy for many seconds; the abort must not wait for it.
    const pending = new ThreadedDiarizer().diarize(alternatingVoices(300), [{ start: 0, end: 300 }], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 100);
    await expect(pending).rejects.toBe(reason);
  });

  it('does not start when the signal is already aborted, nor refine the speech', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already gone'));
    let refined = false;
    const diarizer = new ThreadedDiarizer(async (_pcm, speech) => {
      refined = true;
      return speech;
    });
    await expect(
      diarizer.diarize(new Float32Array(SAMPLE_RATE), [{ start: 0, end: 1 }], { signal: controller.signal }),
    ).rejects.toThrow('already gone');
    expect(refined).toBe(false);
  });
});
