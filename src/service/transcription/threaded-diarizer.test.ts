import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { alternatingVoices as voices } from '../../../test/helpers/signals';
import { SAMPLE_RATE } from '../speech/types';
import { DiarizationThreads, ThreadedDiarizer } from './threaded-diarizer';

const alternatingVoices = (seconds: number) => voices(seconds, SAMPLE_RATE, 1);

/** Runs `body` with DiarizationThreads of its own and a diarizer on them, closed afterwards whatever happens. */
async function withThreads(
  body: (threads: DiarizationThreads, diarizer: ThreadedDiarizer) => Promise<void>,
  options?: ConstructorParameters<typeof DiarizationThreads>[0],
): Promise<void> {
  const threads = new DiarizationThreads(options);
  try {
    await body(threads, new ThreadedDiarizer(undefined, threads));
  } finally {
    await threads.close();
  }
}

describe('ThreadedDiarizer', () => {
  it('diarizes on a worker thread', async () => {
    const result = await new ThreadedDiarizer().diarize(alternatingVoices(32), [{ start: 0, end: 32 }]);
    expect(result.turns.length).toBeGreaterThan(1);
    expect(new Set(result.turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
  });

  it('reads a shared buffer in place, leaving it readable here, and moves any other buffer', async () => {
    const voicesPcm = alternatingVoices(16);
    const shared = new Float32Array(new SharedArrayBuffer(voicesPcm.byteLength));
    shared.set(voicesPcm);
    // The pipeline's chunks still queued for recognition are views of the same buffer.
    const queuedChunk = shared.subarray(SAMPLE_RATE, 2 * SAMPLE_RATE);
    const fromShared = await new ThreadedDiarizer().diarize(shared, [{ start: 0, end: 16 }]);
    expect(queuedChunk.length).toBe(SAMPLE_RATE);
    expect(Array.from(queuedChunk)).toEqual(Array.from(voicesPcm.subarray(SAMPLE_RATE, 2 * SAMPLE_RATE)));

    const moved = alternatingVoices(16);
    const fromMoved = await new ThreadedDiarizer().diarize(moved, [{ start: 0, end: 16 }]);
    expect(moved.length).toBe(0); // transferred: detached here
    expect(fromShared).toEqual(fromMoved);
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
    await withThreads(async (threads, diarizer) => {
      const first = await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      const second = await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      const fresh = await new ThreadedDiarizer().diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      expect(threads.started).toBe(1);
      expect(threads.alive).toBe(1);
      expect(second).toEqual(first);
      expect(fresh).toEqual(first);
      expect(new Set(first.turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
    });
  });

  it('warm() starts the thread the next request uses', async () => {
    await withThreads(async (threads, diarizer) => {
      threads.warm();
      threads.warm();
      expect(threads.started).toBe(1);
      await diarizer.diarize(alternatingVoices(8), [{ start: 0, end: 8 }]);
      expect(threads.started).toBe(1);
    });
  });

  it('ends the thread of an aborted request and serves the next one on a fresh thread', async () => {
    await withThreads(async (threads, diarizer) => {
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
    });
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
    await withThreads(async (threads, diarizer) => {
      const pcm = () => new Float32Array(SAMPLE_RATE);
      await expect(diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).rejects.toThrow('diarization failed: no voices');
      expect(await diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).toEqual({ turns: [], profiles: { n: 2 } });
      expect(threads.started).toBe(1);
      await expect(diarizer.diarize(pcm(), [])).rejects.toThrow('exited with code 3');
      expect(threads.alive).toBe(0);
      await expect(diarizer.diarize(pcm(), [{ start: 0, end: 1 }])).rejects.toThrow('no voices');
      expect(threads.started).toBe(2);
    }, { start: () => new Worker(script, { eval: true }) });
  });

  it('gives a second request at once a thread of its own and keeps one idle thread after', async () => {
    await withThreads(async (threads, diarizer) => {
      const [a, b] = await Promise.all([
        diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]),
        diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]),
      ]);
      expect(b).toEqual(a);
      expect(threads.started).toBe(2);
      expect(threads.alive).toBe(1);
    });
  });

  it('ends the thread after a recording longer than recycleSeconds', async () => {
    await withThreads(async (threads, diarizer) => {
      await diarizer.diarize(alternatingVoices(8), [{ start: 0, end: 8 }]);
      expect(threads.alive).toBe(1);
      await diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      expect(threads.alive).toBe(0);
      expect(threads.started).toBe(1);
    }, { recycleSeconds: 10 });
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
