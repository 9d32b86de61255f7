import { describe, expect, it } from 'vitest';
import { parseScript } from '../speech/alignment/script-text';
import { SAMPLE_RATE, type Aligner, type RecognizedWord, type Transcript } from '../speech/types';
import type { KeptStretch } from '../storage/script-align-checkpoint-store';
import { alignmentContext, alignScriptWords, scriptTranscript, type StretchCheckpoints } from './script-align';

/** A recording whose sample k holds k / SAMPLE_RATE (its own time), served in 1 s blocks. */
async function* clock(seconds: number): AsyncGenerator<Float32Array> {
  for (let at = 0; at < seconds * SAMPLE_RATE; at += SAMPLE_RATE) {
    const n = Math.min(SAMPLE_RATE, seconds * SAMPLE_RATE - at);
    yield Float32Array.from({ length: n }, (_, k) => (at + k) / SAMPLE_RATE);
  }
}

/**
 * An aligner that places the words evenly over the audio it is given and checks that audio is the
 * stretch it was asked for (the samples carry their own time). Words named in `fail` make it throw.
 */
function evenAligner(fail: string[] = []) {
  const calls: Array<{ offset: number; first: number; last: number; seconds: number }> = [];
  const aligner: Aligner = {
    async align(pcm, text, options = {}) {
      const offset = options.offset ?? 0;
      calls.push({ offset, first: pcm[0]!, last: pcm[pcm.length - 1]!, seconds: pcm.length / SAMPLE_RATE });
      const words = text.split(' ');
      if (words.some((w) => fail.includes(w))) throw new Error('decoder failed');
      const step = pcm.length / SAMPLE_RATE / words.length;
      return words.map((word, k) => ({ word, start: offset + k * step, end: offset + (k + 0.9) * step, confidence: word === 'zyx' ? 0 : 0.97 }));
    },
  };
  return { aligner, calls };
}

// 120 words, one every 0.5 s: the recogniser heard every word, but "seven" as "heaven".
const scriptWords = Array.from({ length: 120 }, (_, k) => `w${k}`);
const recognized: RecognizedWord[] = scriptWords.map((w, k) => ({ word: w, start: k * 0.5, end: k * 0.5 + 0.4, confidence: 0.9 }));

describe('alignScriptWords', () => {
  it('aligns each stretch to exactly its own audio, read as it is decoded, and times every word in order', async () => {
    const { aligner, calls } = evenAligner();
    const script = parseScript(scriptWords.join(' '));
    const { words, stats } = await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner });
    expect(words.map((w) => w.word)).toEqual(scriptWords);
    expect(stats).toMatchObject({ words: 120, aligned: 120, interpolated: 0, failed_stretches: 0, anchored: 120 });
    expect(stats.stretches).toBe(calls.length);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const sorted = [...calls].sort((a, b) => a.offset - b.offset);
    for (const c of sorted) {
      // The stretch's first sample is its start time, its last just before its end: no block was dropped early.
      expect(c.first).toBeCloseTo(c.offset, 3);
      expect(c.last).toBeCloseTo(c.offset + c.seconds - 1 / SAMPLE_RATE, 3);
      expect(c.seconds).toBeLessThanOrEqual(30.5);
    }
    for (let k = 1; k < words.length; k++) expect(words[k]!.start).toBeGreaterThanOrEqual(words[k - 1]!.end);
  });

  it('spreads a failed stretch over its audio and counts it; a word the aligner interpolated counts as interpolated', async () => {
    const text = [...scriptWords.slice(0, 100), 'zyx', 'boom', ...scriptWords.slice(100)];
    const { aligner } = evenAligner(['boom']);
    const script = parseScript(text.join(' '));
    const { words, stats } = await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner });
    expect(words).toHaveLength(text.length);
    expect(stats.failed_stretches).toBe(1);
    const failed = words.filter((w) => !w.aligned);
    expect(failed.map((w) => w.word)).toContain('boom');
    expect(failed.map((w) => w.word)).toContain('zyx');
    expect(stats.interpolated).toBe(failed.length);
    expect(stats.aligned + stats.interpolated).toBe(text.length);
    for (const w of failed) expect(w.confidence).toBe(0);
    for (let k = 1; k < words.length; k++) expect(words[k]!.start).toBeGreaterThanOrEqual(words[k - 1]!.end);
    expect(words.at(-1)!.end).toBeLessThanOrEqual(60);
  });
});

/** Checkpoints in memory, as the store keeps them (times to the millisecond, a copy of the words). */
function memoryCheckpoints(): StretchCheckpoints & { rows: KeptStretch[] } {
  const rows: KeptStretch[] = [];
  return {
    rows,
    get kept() {
      return [...rows];
    },
    async keep(stretch) {
      const ms = (t: number) => Math.round(t * 1000) / 1000;
      rows.push(JSON.parse(JSON.stringify({ ...stretch, start: ms(stretch.start), end: ms(stretch.end) })) as KeptStretch);
    },
  };
}

describe('alignScriptWords, resumed from checkpoints', () => {
  // The first stretch fails (its words are spread over it): a kept failure is a failure again, not aligned anew.
  const text = [...scriptWords.slice(0, 5), 'boom', ...scriptWords.slice(5)];
  const script = parseScript(text.join(' '));

  it('aligns only the stretches an interrupted attempt did not keep, and gives the words of an uninterrupted run', async () => {
    const whole = evenAligner(['boom']);
    const reference = await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner: whole.aligner });
    expect(reference.stats.stretches).toBeGreaterThanOrEqual(3);
    expect(reference.stats.failed_stretches).toBe(1);
    expect(reference.reused).toBe(0);

    // The first attempt is stopped while aligning its third stretch (a worker handing its job back).
    const checkpoints = memoryCheckpoints();
    const stop = new AbortController();
    const first = evenAligner(['boom']);
    const interrupted: Aligner = {
      async align(pcm, words, options) {
        if (first.calls.length === 2) {
          stop.abort(new Error('worker stopping'));
          throw stop.signal.reason;
        }
        return first.aligner.align(pcm, words, options);
      },
    };
    await expect(alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner: interrupted, signal: stop.signal, checkpoints })).rejects.toThrow('worker stopping');
    // The two stretches aligned are kept (the failed one too), the third is not.
    expect(checkpoints.rows.map((r) => r.start).sort((a, b) => a - b)).toEqual(first.calls.map((c) => c.offset).sort((a, b) => a - b));
    expect(checkpoints.rows).toHaveLength(2);
    expect(checkpoints.rows.find((r) => r.from === 0)?.words).toBeNull();

    // The next attempt aligns the rest only, and its words are the uninterrupted run's.
    const second = evenAligner(['boom']);
    const resumed = await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner: second.aligner, checkpoints });
    expect(resumed.reused).toBe(2);
    expect(second.calls).toHaveLength(reference.stats.stretches - 2);
    const offsets = (calls: Array<{ offset: number }>) => calls.map((c) => c.offset).sort((a, b) => a - b);
    expect(offsets(second.calls)).toEqual(offsets(whole.calls).filter((o) => !offsets(first.calls).includes(o)));
    expect(resumed.stats).toEqual(reference.stats);
    expect(resumed.words).toEqual(reference.words);
    // What it aligned is kept too: every stretch is, once.
    expect(checkpoints.rows.map((r) => r.from).sort((a, b) => a - b)).toEqual([...new Set(checkpoints.rows.map((r) => r.from))].sort((a, b) => a - b));
    expect(checkpoints.rows).toHaveLength(reference.stats.stretches);
  });

  it('reuses a kept stretch only when it is exactly the one planned (same words, same audio)', async () => {
    const checkpoints = memoryCheckpoints();
    await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner: evenAligner(['boom']).aligner, checkpoints });
    // Each kept stretch moved by a millisecond, or given one word fewer: none is the planned one any more.
    for (const shift of [(k: KeptStretch) => ({ ...k, end: k.end + 0.001 }), (k: KeptStretch) => ({ ...k, to: k.to - 1 })]) {
      const again = evenAligner(['boom']);
      const resumed = await alignScriptWords({ script, recognized, duration: 60, audio: clock(60), aligner: again.aligner, checkpoints: { kept: checkpoints.rows.map(shift), keep: async () => {} } });
      expect(resumed.reused).toBe(0);
      expect(again.calls).toHaveLength(resumed.stats.stretches);
    }
  });
});

describe('alignmentContext', () => {
  const base: Transcript = {
    language: 'en',
    duration: 10,
    text: 'one two',
    engine: 'pocketsphinx',
    speakers: ['S1'],
    segments: [{ id: 0, speaker: 'S1', start: 0, end: 2, text: 'one two', words: [{ word: 'one', start: 0, end: 0.5, confidence: 0.9, speaker: 'S1' }, { word: 'two', start: 1, end: 2, confidence: 0.9, speaker: 'S1' }], avgLogprob: -1 }],
  };
  const parts = { recording: 'original.flac', text: 'One two.', revision: 3, base, model: '/models/en-us', pronounced: ['zyx'] };

  it('is the same for the same request, and differs when anything the stretches come from differs', () => {
    const context = alignmentContext(parts);
    expect(alignmentContext(structuredClone(parts))).toBe(context);
    const moved = structuredClone(base);
    moved.segments[0]!.words[1]!.start = 1.1;
    const others = [
      { recording: 'other.flac' },
      { text: 'One two!' },
      { revision: 4 },
      { base: moved },
      { base: { ...base, duration: 11 } },
      { model: '/models/other' },
      { pronounced: [] },
    ].map((change) => alignmentContext({ ...parts, ...change }));
    expect(new Set([context, ...others]).size).toBe(others.length + 1);
  });
});

describe('scriptTranscript', () => {
  const base: Transcript = {
    language: 'en',
    duration: 10,
    text: '',
    engine: 'pocketsphinx',
    speakers: ['S1', 'S2'],
    profiles: { S1: [1], S2: [2] },
    segments: [
      { id: 0, speaker: 'S1', start: 0, end: 4, text: 'x', words: [], avgLogprob: -1 },
      { id: 1, speaker: 'S2', start: 4, end: 10, text: 'y', words: [], avgLogprob: -1 },
    ],
  };
  const timed = (n: number) => Array.from({ length: n }, (_, k) => ({ word: '', start: k, end: k + 0.8, confidence: 0.9, aligned: true }));

  it('takes speakers from the recognised lines the words overlap, cut into lines at sentence ends', () => {
    const script = parseScript('One two three. Four five six seven eight nine ten');
    const t = scriptTranscript(base, script, timed(10), null);
    expect(t.segments.map((s) => [s.speaker, s.text])).toEqual([
      ['S1', 'One two three.'],
      ['S1', 'Four'],
      ['S2', 'five six seven eight nine ten'],
    ]);
    expect(t.text).toBe('One two three. Four five six seven eight nine ten');
    expect(t.segments.map((s) => s.id)).toEqual([0, 1, 2]);
    expect(t.segments[2]!.words.every((w) => w.speaker === 'S2')).toBe(true);
    expect(t.speakers).toEqual(['S1', 'S2']);
  });

  it("uses the script's names where it gives them, dropping profiles of labels no longer present", () => {
    const script = parseScript('ADA: One two three\nFour five six seven eight nine ten');
    const t = scriptTranscript(base, script, timed(10), new Map([['ADA', 'S2']]));
    expect(t.speakers).toEqual(['S2']);
    expect(t.segments.map((s) => s.text)).toEqual(['One two three', 'Four five six seven eight nine ten']);
    expect(t.profiles).toEqual({ S2: [2] });
  });
});
