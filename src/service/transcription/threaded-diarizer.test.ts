import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE } from '../speech/types';
import { DiarizationThreads, ThreadedDiarizer } from './threaded-diarizer';

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

describe('DiarizationThreads', () => {
  it('serves one request after another on the same thread, with the same result as a fresh thread', async () => {
    const threads = new DiarizationThreads();
    try {
      const diarizer = new ThreadedDiarizer(undefined, threads);
      const first = await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      const second = await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      const fresh = await new ThreadedDiarizer().diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      expect(threads.started).toBe(1);
      expect(threads.alive).toBe(1);
      expect(second).toEqual(first);
      expect(fresh).toEqual(first);
      expect(new Set(first.turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
    } finally {
      await threads.close();
    }
  });

  it('warm() starts the thread the next request uses', async () => {
    const threads = new DiarizationThreads();
    try {
      threads.warm();
      threads.warm();
      expect(threads.started).toBe(1);
      await new ThreadedDiarizer(undefined, threads).diarize(alternatingVoices(8), [{ start: 0, end: 8 }]);
      expect(threads.started).toBe(1);
    } finally {
      await threads.close();
    }
  });

  it('ends the thread of an aborted request and serves the next one on a fresh thread', async () => {
    const threads = new DiarizationThreads();
    try {
      const diarizer = new ThreadedDiarizer(undefined, threads);
      const controller = new AbortController();
      const reason = new Error('client went away');
      const pending = diarizer.diarize(alternatingVoices(300), [{ start: 0, end: 300 }], { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 100);
      await expect(pending).rejects.toBe(reason);
      expect(threads.alive).toBe(0);
      const next = await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      expect(new Set(next.turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
      expect(threads.started).toBe(2);
      expect(threads.alive).toBe(1);
    } finally {
      await threads.close();
    }
  });

  it('keeps a thread whose diarization failed, and replaces one that crashed', async () => {
    // A stand-in thread: fails its first request, answers the second, and exits on the word "crash".
    const script = `
      const { parentPort } = require('node:worker_threads');
      let n = 0;
      parentPort.on('message', (r) => {
        if (r.speech.length === 0) process.exit(3);
        n++;
        if (n === 1) parentPort.postMessage({ id: r.id, ok: false, message: 'no voices' });
        else parentPort.postMessage({ id: r.id, ok: true, result: { turns: [], profiles: { n } } });
      });`;
    const threads = new DiarizationThreads({ start: () => new Worker(script, { eval: true }) });
    try {
      const diarizer = new ThreadedDiarizer(undefined, threads);
      const pcm = () => new Float32Array(SAMPLE_RATE);
      await expect(diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).rejects.toThrow('diarization failed: no voices');
      expect(await diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).toEqual({ turns: [], profiles: { n: 2 } });
      expect(threads.started).toBe(1);
      await expect(diarizer.diarize(pcm(), [])).rejects.toThrow('exited with code 3');
      expect(threads.alive).toBe(0);
      await expect(diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).rejects.toThrow('no voices');
      expect(threads.started).toBe(2);
    } finally {
      await threads.close();
    }
  });

  it('gives a second request at once a thread of its own and keeps one idle thread after', async () => {
    const threads = new DiarizationThreads();
    try {
      const diarizer = new ThreadedDiarizer(undefined, threads);
      const [a, b] = await Promise.all([
        diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]),
        diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]),
      ]);
      expect(b).toEqual(a);
      expect(threads.started).toBe(2);
      expect(threads.alive).toBe(1);
    } finally {
      await threads.close();
    }
  });

  it('ends the thread after a recording longer than recycleSeconds', async () => {
    const threads = new DiarizationThreads({ recycleSeconds: 10 });
    try {
      const diarizer = new ThreadedDiarizer(undefined, threads);
      await diarizer.diarize(alternatingVoices(8), [{ start: 0, end: 8 }]);
      expect(threads.alive).toBe(1);
      await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      expect(threads.alive).toBe(0);
      expect(threads.started).toBe(1);
    } finally {
      await threads.close();
    }
  });

  it('close() ends idle and busy threads: a running request rejects and later ones are refused', async () => {
    const threads = new DiarizationThreads();
    const diarizer = new ThreadedDiarizer(undefined, threads);
    threads.warm();
    const pending = diarizer.diarize(alternatingVoices(300), [{ start: 0, end: 300 }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await threads.close();
    await expect(pending).rejects.toThrow(/exited/);
    expect(threads.alive).toBe(0);
    await expect(diarizer.diarize(alternatingVoices(4), [{ start: 0, end: 4 }])).rejects.toThrow('closed');
  });
});
