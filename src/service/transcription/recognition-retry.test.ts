import { describe, expect, it } from 'vitest';
import type { RecognizedSegment, Recognizer } from '../speech/types';
import { retryingRecognizer } from './recognition-retry';

const segment: RecognizedSegment = { start: 0, end: 1, text: 'hello', words: [], avgLogprob: -0.2 };

/** Fails its first `failures` calls (a watchdog firing on a starved machine), then recognizes. */
function flaky(failures: number): Recognizer & { calls: number } {
  const r = {
    id: 'flaky',
    writesText: true,
    calls: 0,
    async recognize() {
      r.calls++;
      if (r.calls <= failures) throw new Error('pocketsphinx timed out on 16.9 s');
      return [segment];
    },
    close: async () => undefined,
  };
  return r;
}

describe('retryingRecognizer', () => {
  it('tries a failed chunk once more, saying so, and keeps what the engine is', async () => {
    const inner = flaky(1);
    const retried: number[] = [];
    const recognizer = retryingRecognizer(inner, (_error, offset) => retried.push(offset));
    expect(recognizer.writesText).toBe(true);
    expect(await recognizer.recognize(new Float32Array(10), { offset: 12.5 })).toEqual([segment]);
    expect({ calls: inner.calls, retried }).toEqual({ calls: 2, retried: [12.5] });
  });

  it('fails a chunk that fails twice', async () => {
    const inner = flaky(2);
    await expect(retryingRecognizer(inner).recognize(new Float32Array(10))).rejects.toThrow('timed out');
    expect(inner.calls).toBe(2);
  });

  it('does not retry when the caller stopped', async () => {
    const inner = flaky(1);
    const controller = new AbortController();
    controller.abort();
    await expect(retryingRecognizer(inner).recognize(new Float32Array(10), { signal: controller.signal })).rejects.toThrow('timed out');
    expect(inner.calls).toBe(1);
  });
});
