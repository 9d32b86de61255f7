import { describe, expect, it } from 'vitest';
import { spectralVoiceMatcher } from '../speakers/voice-matcher';
import type { SpeakerChunk } from '../speech/recognition/pocketsphinx/adaptation';
import type { BatchEstimator } from '../speech/recognition/pocketsphinx/batch-mllr';
import { SAMPLE_RATE, type RecognizeOptions, type Recognizer } from '../speech/types';
import { alternatingVoices } from '../../../test/helpers/signals';
import { requestAdaptingRecognizer, type RequestAdaptationSettings } from './request-adaptation';

// 4 s of each of two synthetic voices (F0 120 and 210 Hz): the voice matcher tells them apart.
const both = alternatingVoices(8, SAMPLE_RATE, 7);
const VOICE = { A: both.subarray(0, 4 * SAMPLE_RATE), B: both.subarray(4 * SAMPLE_RATE) };
const DICTIONARY = new Set(['hello', 'world']);
const logged: string[] = [];
const SETTINGS: RequestAdaptationSettings = {
  maxBatchSeconds: 120,
  lag: 2,
  log: (line) => logged.push(line),
};

/** Says "hello world" for every chunk after a delay from `delays`; its text names the transform it got. */
function fakeRecognizer(delays: () => number, words = ['hello', 'world']) {
  const recognizer: Recognizer = {
    id: 'fake',
    recognize: async (pcm: Float32Array, options: RecognizeOptions = {}) => {
      await new Promise((r) => setTimeout(r, delays()));
      const end = pcm.length / SAMPLE_RATE;
      return [
        {
          start: 0,
          end,
          text: options.mllr ?? '-',
          avgLogprob: -1,
          words: words.map((word, i) => ({ word, start: i, end: i + 1, confidence: 0.9 })),
        },
      ];
    },
    close: async () => {},
  };
  return { recognizer };
}

/** Names each transform after its voice and the chunks it has seen; every estimate throws `fail` if given. */
function fakeEstimator(fail?: Error) {
  const calls: Array<{ voice: number; ids: string[]; current: string | null }> = [];
  const all = new Map<number, string[]>();
  let closed = false;
  const estimator: BatchEstimator = {
    minSeconds: 8,
    estimate: async (voice: number, chunks: readonly SpeakerChunk[], current: string | null) => {
      calls.push({ voice, ids: chunks.map((c) => c.id), current });
      await new Promise((r) => setTimeout(r, 5));
      if (fail) throw fail;
      all.set(voice, [...(all.get(voice) ?? []), ...chunks.map((c) => c.id)]);
      return `v${voice}:${all.get(voice)!.join(',')}`;
    },
    close: async () => {
      closed = true;
    },
  };
  return { estimator, calls, closed: () => closed };
}

const order = ['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B'] as const;

async function run(
  delays: () => number,
  estimator = fakeEstimator(),
  words?: string[],
  chunks: readonly Float32Array[] = order.map((v) => VOICE[v]),
) {
  const fake = fakeRecognizer(delays, words);
  const adapting = requestAdaptingRecognizer(
    fake.recognizer,
    estimator.estimator,
    spectralVoiceMatcher,
    DICTIONARY,
    SETTINGS,
  );
  // The pipeline keeps two chunks in flight.
  const results: Array<Promise<Array<{ text: string }>>> = [];
  for (const [i, pcm] of chunks.entries()) {
    if (i >= 2) await results[i - 2];
    results.push(adapting.recognizer.recognize(pcm));
  }
  // The transform each chunk was decoded with, in chunk order.
  const seen = (await Promise.all(results)).map((segments) =>
    segments[0]!.text === '-' ? undefined : segments[0]!.text,
  );
  await adapting.recognizer.close();
  return { seen, use: adapting.use(), calls: estimator.calls, closed: estimator.closed() };
}

describe('requestAdaptingRecognizer (adaptation within a recording)', () => {
  it('decodes a voice’s later chunks with the transform fitted to its own earlier ones, never the other voice’s', async () => {
    const { seen, use, calls, closed } = await run(() => 1);
    // A reaches 8 s at chunk 2 (its estimate starts there); chunk 4 is the first allowed to use it (lag 2).
    // A's next batch (4 s more) starts no estimate until it equals what A had (chunk 6: 8 s more).
    expect(seen).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'v0:c0,c2',
      'v1:c1,c3',
      'v0:c0,c2',
      'v1:c1,c3',
    ]);
    expect(calls.slice(0, 2)).toEqual([
      { voice: 0, ids: ['c0', 'c2'], current: null },
      { voice: 1, ids: ['c1', 'c3'], current: null },
    ]);
    // The later batches are aligned along each voice's transform.
    expect(calls.slice(2)).toEqual([
      { voice: 0, ids: ['c4', 'c6'], current: 'v0:c0,c2' },
      { voice: 1, ids: ['c5', 'c7'], current: 'v1:c1,c3' },
    ]);
    expect(use).toEqual({ chunks: 8, voices: 2, adaptedChunks: 4, estimates: 4 });
    expect(closed).toBe(true);
  });

  it('re-estimates each time a voice’s new speech reaches what it had, and uses each from lag chunks on', async () => {
    const { seen, calls } = await run(
      () => 1,
      fakeEstimator(),
      undefined,
      Array<Float32Array>(12).fill(VOICE.A),
    );
    // Estimates start after chunks 1 (8 s), 3 (16 s) and 7 (32 s); each is used from 2 chunks later (lag 2).
    expect(calls.map((c) => c.ids.at(-1))).toEqual(['c1', 'c3', 'c7']);
    const [first, second, third] = ['v0:c0,c1', 'v0:c0,c1,c2,c3', 'v0:c0,c1,c2,c3,c4,c5,c6,c7'];
    expect(seen).toEqual([
      undefined,
      undefined,
      undefined,
      first,
      first,
      second,
      second,
      second,
      second,
      third,
      third,
      third,
    ]);
  });

  it('gives each chunk the same transform whichever decoder finishes first', async () => {
    let seed = 3;
    const jitter = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 25;
    const first = await run(jitter);
    for (let i = 0; i < 3; i++) expect((await run(jitter)).seen).toEqual(first.seen);
  });

  it('decodes un-adapted when the estimates fail, without failing a chunk, and says why', async () => {
    logged.length = 0;
    const { seen, use, calls } = await run(() => 1, fakeEstimator(new Error('bw failed')));
    expect(seen.every((m) => m === undefined)).toBe(true);
    expect(calls.length).toBeGreaterThan(0);
    expect(use.adaptedChunks).toBe(0);
    expect(logged).toContain('adaptation within the recording: voice 1 not re-estimated (bw failed)');
    // A stop at the recording's end is not a failure worth a line.
    logged.length = 0;
    await run(() => 1, fakeEstimator(Object.assign(new Error('stopped'), { name: 'AbortError' })));
    expect(logged).toEqual([]);
  });

  it('leaves out chunks with a word the dictionary lacks (Baum-Welch needs its phones)', async () => {
    const { seen, calls } = await run(() => 1, fakeEstimator(), ['hello', 'zorblatt']);
    expect(calls).toEqual([]);
    expect(seen.every((m) => m === undefined)).toBe(true);
  });

  it('decodes a chunk with no voice profile (too short) as it is, and counts it', async () => {
    const { seen, use, calls } = await run(() => 1, fakeEstimator(), undefined, [new Float32Array(100)]);
    expect(seen).toEqual([undefined]);
    expect(use).toEqual({ chunks: 1, voices: 0, adaptedChunks: 0, estimates: 0 });
    expect(calls).toEqual([]);
  });
});
