import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import type { Diarizer, RecognizedSegment, Recognizer, Span, VoiceActivityDetector } from '../types';
import { SAMPLE_RATE } from '../types';
import { SileroVad, type StreamingVoiceActivityDetector, type VadSnapshot } from '../vad/silero';
import { transcribeBlocks, transcribeFile, type ChunkPlan, type TranscribeStage } from './transcribe';
import { createWpeDereverberator } from '../enhancement/reverberant-speech';
import { convolve, syntheticRoom } from '../quality/signals.testutil';

/*
 * Fakes with exact, checkable behaviour. The test audio is tone bursts: a 300 Hz tone stands for one voice
 * saying "low", a 1200 Hz tone for another saying "high". The fake VAD finds energy, the fake recognizer
 * names each burst by its zero-crossing rate, the fake diarizer labels turns the same way. The real
 * engines are exercised by their own tests and by bench/pipeline.
 */

const tools = resolveMediaTools();
const FRAME = 320; // 20 ms

function bursts(pcm: Float32Array, offset: number, minGap = 0.3): (Span & { zcr: number })[] {
  const out: (Span & { zcr: number; crossings: number; n: number })[] = [];
  for (let f = 0; (f + 1) * FRAME <= pcm.length; f++) {
    let e = 0;
    let z = 0;
    for (let i = f * FRAME; i < (f + 1) * FRAME; i++) {
      e += pcm[i]! * pcm[i]!;
      if (i > f * FRAME && pcm[i]! >= 0 !== pcm[i - 1]! >= 0) z++;
    }
    if (Math.sqrt(e / FRAME) < 0.01) continue;
    const start = offset + (f * FRAME) / SAMPLE_RATE;
    const end = start + FRAME / SAMPLE_RATE;
    const last = out.at(-1);
    if (last && start - last.end < minGap) {
      last.end = end;
      last.crossings += z;
      last.n++;
    } else out.push({ start, end, zcr: 0, crossings: z, n: 1 });
  }
  return out.map((b) => ({ start: b.start, end: b.end, zcr: b.crossings / b.n / FRAME }));
}

const word = (zcr: number) => (zcr > 0.08 ? 'high' : 'low');

class EnergyVad implements VoiceActivityDetector {
  async detect(pcm: Float32Array, options: { offset?: number } = {}): Promise<Span[]> {
    return bursts(pcm, options.offset ?? 0).map(({ start, end }) => ({ start, end }));
  }
}

class FakeRecognizer implements Recognizer {
  readonly id = 'fake-tones';
  // These tests follow words through the pipeline as the engine wrote them; one test below turns writing on.
  writesText = true;
  calls: Span[] = [];
  running = 0;
  maxRunning = 0;
  constructor(private readonly delay: (call: number) => number = () => 5) {}
  async recognize(pcm: Float32Array, options: { offset?: number; signal?: AbortSignal } = {}) {
    const offset = options.offset ?? 0;
    const call = this.calls.push({ start: offset, end: offset + pcm.length / SAMPLE_RATE }) - 1;
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((r) => setTimeout(r, this.delay(call)));
    this.running--;
    if (options.signal?.aborted) throw new Error('aborted');
    const words = bursts(pcm, offset, 0.05).map((b) => ({
      word: word(b.zcr),
      start: b.start,
      end: b.end,
      confidence: 1,
    }));
    if (words.length === 0) return [];
    const segment: RecognizedSegment = {
      start: offset,
      end: offset + pcm.length / SAMPLE_RATE,
      text: words.map((w) => w.word).join(' '),
      words,
      avgLogprob: -0.1,
    };
    return [segment];
  }
  async close() {}
}

class ToneDiarizer implements Diarizer {
  seen: { samples: number; speech: Span[] } | null = null;
  async diarize(pcm: Float32Array, speech: Span[]) {
    this.seen = { samples: pcm.length, speech };
    // The high voice is the diarizer's "S1" so the test can check that the transcript renumbers.
    const turns = bursts(pcm, 0, 0.05).map((b) => ({
      start: b.start,
      end: b.end,
      speaker: b.zcr > 0.08 ? 'S1' : 'S2',
    }));
    return { turns, profiles: { S1: [1, 0], S2: [0, 1] } };
  }
}

let dir = '';
function ffmpeg(args: string[]) {
  execFileSync(tools.ffmpeg, ['-nostdin', '-loglevel', 'error', '-y', ...args]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'takeline-pipeline-'));
  // low 1–2 s, high 2.1–2.9 s (same phrase, speaker change inside it), low 5–6 s, high 9–11 s; 12 s long.
  const env =
    'between(t,1,2)*sin(2*PI*300*t)+between(t,2.1,2.9)*sin(2*PI*1200*t)+between(t,5,6)*sin(2*PI*300*t)+between(t,9,11)*sin(2*PI*1200*t)';
  ffmpeg(['-f', 'lavfi', '-i', `aevalsrc='0.3*(${env})':s=44100:d=12`, '-ac', '2', join(dir, 'tones.m4a')]);
  ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '3', join(dir, 'silence.wav')]);
  ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=64x64:d=1', '-c:v', 'libx264', join(dir, 'video_only.mp4')]);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('transcribeFile', () => {
  it('runs decode → VAD → recognition → diarization and builds the transcript', async () => {
    // The first chunk is the slowest, so results finish out of order but must be delivered in order.
    const recognizer = new FakeRecognizer((call) => (call === 0 ? 120 : 5));
    const diarizer = new ToneDiarizer();
    const streamed: [number, string][] = [];
    const progress: [number, TranscribeStage][] = [];
    let profiles: Record<string, number[]> = {};
    const transcript = await transcribeFile(
      join(dir, 'tones.m4a'),
      { tools, vad: new EnergyVad(), recognizer, diarizer, concurrency: 2 },
      {
        language: 'en',
        onSegment: (s, i) => streamed.push([i, s.text]),
        onProgress: (f, stage) => progress.push([f, stage]),
        onDiarization: (r) => (profiles = r.profiles),
        chunks: { maxChunkSeconds: 20, mergeGapSeconds: 0.6 },
      },
    );
    expect(streamed).toEqual([
      [0, 'low high'],
      [1, 'low'],
      [2, 'high'],
    ]);
    expect(transcript.segments.map((s) => [s.id, s.speaker, s.text])).toEqual([
      [0, 'S1', 'low'],
      [1, 'S2', 'high'],
      [2, 'S1', 'low'],
      [3, 'S2', 'high'],
    ]);
    expect(transcript.text).toBe('low high low high');
    expect(transcript.speakers).toEqual(['S1', 'S2']);
    expect(transcript.engine).toBe('fake-tones');
    expect(transcript.duration).toBeCloseTo(12, 1);
    expect(transcript.segments[3]!.start).toBeCloseTo(9, 1);
    expect(transcript.segments[3]!.end).toBeCloseTo(11, 1);
    // Diarizer "S1" (high) speaks second, so it is the transcript's S2; its profile follows it.
    expect(profiles).toEqual({ S1: [0, 1], S2: [1, 0] });
    expect(recognizer.maxRunning).toBe(2);
    expect(Math.abs(diarizer.seen!.samples / SAMPLE_RATE - transcript.duration)).toBeLessThan(0.001);
    expect(diarizer.seen!.speech.length).toBe(3);
    const fractions = progress.map((p) => p[0]);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    // The duration ffprobe reads beside the decode reaches the progress of recognition.
    expect(progress.some(([f, stage]) => stage === 'recognize' && f > 0 && f < 0.9)).toBe(true);
    expect(progress.at(-1)).toEqual([1, 'done']);
  });

  it('streams each line as soon as it and those before it are recognised, before the last is', async () => {
    // The last recognition waits (up to 3 s) for the first line to have been streamed: a pipeline that streamed
    // only at the end would deliver it after the last recognition, never before.
    const events: string[] = [];
    let firstStreamed!: () => void;
    const streamedOnce = new Promise<void>((resolve) => (firstStreamed = resolve));
    const recognizer = new (class extends FakeRecognizer {
      override async recognize(pcm: Float32Array, options: { offset?: number; signal?: AbortSignal } = {}) {
        const call = this.calls.length;
        if (call === 2) await Promise.race([streamedOnce, new Promise((r) => setTimeout(r, 3000))]);
        const segments = await super.recognize(pcm, options);
        events.push(`recognized ${call}`);
        return segments;
      }
    })();
    const transcript = await transcribeFile(
      join(dir, 'tones.m4a'),
      { tools, vad: new EnergyVad(), recognizer, diarizer: new ToneDiarizer(), concurrency: 1 },
      {
        onSegment: (s, i) => {
          events.push(`delta ${i}`);
          firstStreamed();
        },
        chunks: { maxChunkSeconds: 20, mergeGapSeconds: 0.6 },
      },
    );
    expect(recognizer.calls.length).toBe(3);
    expect(events.indexOf('delta 0')).toBeLessThan(events.indexOf('recognized 2'));
    // A delta for every recognised line, in order, each right after its own recognition.
    expect(events).toEqual(['recognized 0', 'delta 0', 'recognized 1', 'delta 1', 'recognized 2', 'delta 2']);
    expect(transcript.text).toBe('low high low high');
  });

  it('writes sentences for an engine that does not: case and punctuation from pauses, streamed as in the end', async () => {
    const recognizer = new FakeRecognizer();
    recognizer.writesText = false;
    const streamed: string[] = [];
    const transcript = await transcribeFile(
      join(dir, 'tones.m4a'),
      { tools, vad: new EnergyVad(), recognizer },
      { onSegment: (s) => streamed.push(s.text), chunks: { maxChunkSeconds: 20, mergeGapSeconds: 0.6 } },
    );
    // 0.1 s between "low" and "high" is no boundary; the 2 s and 3 s pauses end sentences; so does the end.
    expect(transcript.text).toBe('Low high. Low. High.');
    expect(streamed).toEqual(['Low high.', 'Low.', 'High.']);
    expect(transcript.segments.flatMap((s) => s.words.map((w) => w.word))).toEqual(['Low', 'high.', 'Low.', 'High.']);
  });

  it('labels everything S1 without a diarizer', async () => {
    const transcript = await transcribeFile(join(dir, 'tones.m4a'), {
      tools,
      vad: new EnergyVad(),
      recognizer: new FakeRecognizer(),
    });
    expect(transcript.speakers).toEqual(['S1']);
    expect(transcript.segments.map((s) => s.text)).toEqual(['low high', 'low', 'high']);
  });

  it('starts a concurrent diarizer when the input ends, sharing the recording with the recognitions still queued', async () => {
    // Every chunk is slow, so recognitions are still queued or running when the input ends.
    const recognizer = new (class extends FakeRecognizer {
      sharedChunks = 0;
      override async recognize(pcm: Float32Array, options: { offset?: number; signal?: AbortSignal } = {}) {
        if (pcm.buffer instanceof SharedArrayBuffer) this.sharedChunks++;
        return super.recognize(pcm, options);
      }
    })(() => 80);
    const diarizer = new (class extends ToneDiarizer {
      readonly concurrent = true;
      recognitionsLeft = -1;
      shared = false;
      override async diarize(pcm: Float32Array, speech: Span[]) {
        this.recognitionsLeft = 3 - recognizer.calls.length + recognizer.running;
        this.shared = pcm.buffer instanceof SharedArrayBuffer;
        return super.diarize(pcm, speech);
      }
    })();
    const transcript = await transcribeFile(
      join(dir, 'tones.m4a'),
      { tools, vad: new EnergyVad(), recognizer, diarizer, concurrency: 1 },
      { chunks: { maxChunkSeconds: 20, mergeGapSeconds: 0.6 } },
    );
    expect(diarizer.recognitionsLeft).toBeGreaterThan(0);
    expect(diarizer.shared).toBe(true);
    // Each engine gets a chunk of its own, copied as its recognition starts.
    expect(recognizer.sharedChunks).toBe(0);
    expect(transcript.text).toBe('low high low high');
    expect(transcript.segments.map((s) => s.speaker)).toEqual(['S1', 'S2', 'S1', 'S2']);
  });

  it('aborts a concurrent diarizer when recognition fails', async () => {
    let calls = 0;
    const failing: Recognizer = {
      id: 'broken-late',
      // The last chunk fails after the input has ended, so the diarizer is already running.
      recognize: async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 60));
        if (calls === 3) throw new Error('decoder crashed');
        return [];
      },
      close: async () => {},
    };
    let aborted: unknown = null;
    const diarizer: Diarizer = {
      concurrent: true,
      // Never finishes by itself: only the pipeline's signal can end it.
      diarize: (_pcm, _speech, options) =>
        new Promise((_resolve, reject) =>
          options?.signal?.addEventListener('abort', () => {
            aborted = options.signal!.reason;
            reject(options.signal!.reason);
          }),
        ),
    };
    await expect(
      transcribeFile(
        join(dir, 'tones.m4a'),
        { tools, vad: new EnergyVad(), recognizer: failing, diarizer, concurrency: 1 },
        { chunks: { maxChunkSeconds: 20, mergeGapSeconds: 0.6 } },
      ),
    ).rejects.toThrow('decoder crashed');
    expect((aborted as Error | null)?.message).toBe('decoder crashed');
  });

  it('ends silence as an empty transcript with the recording length', async () => {
    const recognizer = new FakeRecognizer();
    const transcript = await transcribeFile(join(dir, 'silence.wav'), {
      tools,
      vad: new EnergyVad(),
      recognizer,
      diarizer: new ToneDiarizer(),
    });
    expect(transcript).toEqual({
      language: 'en',
      duration: 3,
      text: '',
      segments: [],
      speakers: [],
      engine: 'fake-tones',
    });
    expect(recognizer.calls).toEqual([]);
  });

  it('ends a file without audio as an empty transcript', async () => {
    const transcript = await transcribeFile(join(dir, 'video_only.mp4'), {
      tools,
      vad: new EnergyVad(),
      recognizer: new FakeRecognizer(),
    });
    expect(transcript.segments).toEqual([]);
    expect(transcript.text).toBe('');
    expect(transcript.duration).toBe(0);
  });

  it('rejects when the recognizer fails', async () => {
    const failing: Recognizer = {
      id: 'broken',
      recognize: async () => {
        throw new Error('decoder crashed');
      },
      close: async () => {},
    };
    await expect(
      transcribeFile(join(dir, 'tones.m4a'), { tools, vad: new EnergyVad(), recognizer: failing }),
    ).rejects.toThrow('decoder crashed');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const run = transcribeFile(
      join(dir, 'tones.m4a'),
      { tools, vad: new EnergyVad(), recognizer: new FakeRecognizer(() => 50) },
      { signal: controller.signal, onSegment: () => controller.abort(new Error('user cancelled')) },
    );
    await expect(run).rejects.toThrow();
  });
});

describe('transcribeBlocks', () => {
  it('cuts continuous speech into chunks no longer than the maximum', async () => {
    // 50 s of a steady tone (no pauses) fed as generated blocks.
    async function* tone() {
      for (let s = 0; s < 50; s++) {
        const block = new Float32Array(SAMPLE_RATE);
        for (let i = 0; i < block.length; i++)
          block[i] = 0.3 * Math.sin((2 * Math.PI * 300 * (s * SAMPLE_RATE + i)) / SAMPLE_RATE);
        yield block;
      }
    }
    const recognizer = new FakeRecognizer();
    const transcript = await transcribeBlocks(
      tone(),
      { tools, vad: new EnergyVad(), recognizer },
      {
        chunks: { maxChunkSeconds: 15 },
      },
    );
    expect(recognizer.calls.length).toBeGreaterThanOrEqual(4);
    for (const c of recognizer.calls) expect(c.end - c.start).toBeLessThanOrEqual(15 + 1e-9);
    // The pieces tile the speech without gaps or overlaps.
    for (let i = 1; i < recognizer.calls.length; i++) {
      expect(recognizer.calls[i]!.start).toBeCloseTo(recognizer.calls[i - 1]!.end, 3);
    }
    expect(transcript.duration).toBe(50);
  });

  /**
   * 36 bursts of 0.5 s, low and high in turn, one every 2 s (each a chunk of its own), in 1 s blocks: 72 s, so
   * the windowed energy VAD hands on chunks at 30 and 60 s, while the input is still being read.
   */
  const BURSTS = 36;
  async function* bursts36(pulled: { blocks: number }) {
    for (let s = 0; s < 2 * BURSTS; s++) {
      const block = new Float32Array(SAMPLE_RATE);
      const hz = (s / 2) % 2 === 0 ? 300 : 1200;
      if (s % 2 === 0) for (let i = 0; i < SAMPLE_RATE / 2; i++) block[i] = 0.3 * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE);
      pulled.blocks++;
      yield block;
    }
  }
  const burstWords = Array.from({ length: BURSTS }, (_, i) => (i % 2 === 0 ? 'low' : 'high')).join(' ');

  it('reads the input ahead of recognition for a diarizer on another thread, which starts before most chunks are decoded', async () => {
    const recognizer = new FakeRecognizer(() => 40);
    const pulled = { blocks: 0 };
    const diarizer = new (class extends ToneDiarizer {
      readonly concurrent = true;
      decodedAtStart = -1;
      override async diarize(pcm: Float32Array, speech: Span[]) {
        this.decodedAtStart = recognizer.calls.length - recognizer.running;
        return super.diarize(pcm, speech);
      }
    })();
    const transcript = await transcribeBlocks(bursts36(pulled), { tools, vad: new EnergyVad(), recognizer, diarizer, concurrency: 1 });
    expect(pulled.blocks).toBe(2 * BURSTS);
    // Held back (next test), most of the 30 chunks handed on by 60 s are decoded before the input ends: 24 when
    // this test ran against the pipeline before it read ahead.
    expect(diarizer.decodedAtStart).toBeGreaterThanOrEqual(0);
    expect(diarizer.decodedAtStart).toBeLessThan(20);
    expect(transcript.text).toBe(burstWords);
    expect(new Set(transcript.segments.map((s) => s.speaker))).toEqual(new Set(['S1', 'S2']));
  });

  it('holds the input back to a few chunks ahead of recognition without a diarizer on another thread', async () => {
    for (const diarizer of [undefined, new ToneDiarizer()]) {
      const recognizer = new FakeRecognizer(() => 40);
      const pulled = { blocks: 0 };
      let decodedAtLastBlock = -1;
      async function* watched() {
        for await (const block of bursts36(pulled)) {
          if (pulled.blocks === 2 * BURSTS) decodedAtLastBlock = recognizer.calls.length - recognizer.running;
          yield block;
        }
      }
      const transcript = await transcribeBlocks(watched(), { tools, vad: new EnergyVad(), recognizer, diarizer, concurrency: 1 });
      // The VAD handed on about 30 chunks by 60 s; at most concurrency + 4 = 5 may be unfinished after a block.
      expect(decodedAtLastBlock).toBeGreaterThanOrEqual(20);
      expect(transcript.text).toBe(burstWords);
    }
  });
});

const shared = process.env.TAKELINE_SHARED_DIR ?? resolve(__dirname, '../../../../../shared');
const vadFile = join(shared, 'audio/events/vad_speechbrain/valid.wav');

describe('transcribeFile with the real Silero VAD', () => {
  it.skipIf(!existsSync(vadFile))(
    'hands the recognizer the labelled speech and nothing from the silent stretch',
    async () => {
      const vad = new SileroVad();
      const recognizer = new FakeRecognizer();
      try {
        await transcribeFile(vadFile, { tools, vad, recognizer });
      } finally {
        await vad.close();
      }
      // VAD_dev.json labels speech at 0.38–2.7 s and 4.1–5.88 s of valid.wav, and none in 6–8 s.
      const covered = (t: number) => recognizer.calls.some((c) => c.start <= t && t <= c.end);
      for (const t of [0.5, 1, 2, 2.6, 4.2, 5, 5.8]) expect(covered(t)).toBe(true);
      expect(recognizer.calls.some((c) => c.end > 6.1 && c.start < 7.9)).toBe(false);
    },
  );
});

const meetingFile = join(shared, 'audio/diarization/trn08.flac');

/** A recording fed to the pipeline a second at a time, as the decoder streams it. */
async function* secondBlocks(audio: Float32Array) {
  for (let i = 0; i < audio.length; i += SAMPLE_RATE) yield audio.slice(i, i + SAMPLE_RATE);
}

describe('transcribeBlocks at any recording level', () => {
  it.skipIf(!existsSync(meetingFile))(
    'hands the recognizer the same chunks for a meeting excerpt 30 dB down, which the VAD alone mostly misses',
    async () => {
      const whole = await decodeAudioToArray(meetingFile, tools);
      // 2^-5 (−30.1 dB) scales every float exactly, so the levelled VAD hears bit-identical audio.
      const quiet = whole.map((x) => x / 32);
      const vad = new SileroVad();
      try {
        const speechSeconds = (spans: Span[]) => spans.reduce((s, x) => s + x.end - x.start, 0);
        const loudSpeech = speechSeconds(await vad.detect(whole));
        expect(speechSeconds(await vad.detect(quiet))).toBeLessThan(0.5 * loudSpeech);
        const loud = new FakeRecognizer();
        const soft = new FakeRecognizer();
        await transcribeBlocks(secondBlocks(whole), { tools, vad, recognizer: loud });
        await transcribeBlocks(secondBlocks(quiet), { tools, vad, recognizer: soft });
        expect(loud.calls.length).toBeGreaterThan(0);
        expect(soft.calls).toEqual(loud.calls);
      } finally {
        await vad.close();
      }
    },
    60_000,
  );
});

const longFile = join(shared, 'audio/long/read_speech_concat.flac');

/** The real Silero VAD, counting the samples its streams are fed. */
class CountingVad implements StreamingVoiceActivityDetector {
  fed = 0;
  constructor(private readonly inner: SileroVad) {}
  detect(pcm: Float32Array, options?: { offset?: number }) {
    return this.inner.detect(pcm, options);
  }
  stream(options?: { offset?: number; resume?: VadSnapshot }) {
    const stream = this.inner.stream(options);
    const push = stream.push.bind(stream);
    stream.push = (pcm) => {
      this.fed += pcm.length;
      return push(pcm);
    };
    return stream;
  }
}

describe('a resumed run with a kept chunk plan', () => {
  it.skipIf(!existsSync(longFile))(
    'hands on the same chunks and writes the same transcript, running the VAD only after the plan',
    async () => {
      const file = join(dir, 'read-100s.wav');
      ffmpeg(['-t', '100', '-i', longFile, '-ac', '1', '-ar', '16000', file]);
      const silero = new SileroVad();
      try {
        const saved: ChunkPlan[] = [];
        // Sentences written by the pipeline (pitch cues and pauses), as for PocketSphinx.
        const first = Object.assign(new FakeRecognizer(), { writesText: false });
        const firstVad = new CountingVad(silero);
        const firstDiarizer = new ToneDiarizer();
        const whole = await transcribeFile(file, { tools, vad: firstVad, recognizer: first, diarizer: firstDiarizer }, { plan: { load: () => null, save: (p) => saved.push(JSON.parse(JSON.stringify(p))) } });
        expect(firstVad.fed).toBe(100 * SAMPLE_RATE);
        // A plan is kept as chunks are handed on, at least 20 s of audio apart.
        expect(saved.length).toBeGreaterThanOrEqual(3);
        for (let i = 1; i < saved.length; i++) expect(saved[i]!.vad.samples - saved[i - 1]!.vad.samples).toBeGreaterThanOrEqual(20 * SAMPLE_RATE);
        for (const plan of saved) {
          const again = Object.assign(new FakeRecognizer(), { writesText: false });
          const vad = new CountingVad(silero);
          const diarizer = new ToneDiarizer();
          const resumed = await transcribeFile(file, { tools, vad, recognizer: again, diarizer }, { plan: { load: () => plan, save: () => {} } });
          expect(vad.fed).toBe(100 * SAMPLE_RATE - plan.vad.samples);
          expect(again.calls).toEqual(first.calls);
          expect(diarizer.seen!.speech).toEqual(firstDiarizer.seen!.speech);
          expect(resumed).toEqual(whole);
        }
      } finally {
        await silero.close();
      }
    },
    120_000,
  );

  it('cuts its chunks anew when the VAD cannot resume a stream', async () => {
    const plan = { vad: { engine: 'silero-v5', samples: 16_000 } as VadSnapshot, pending: null, speech: [{ start: 0, end: 0.5 }], chunks: [{ start: 0, end: 0.5 }] };
    const recognizer = new FakeRecognizer();
    const planned = await transcribeFile(join(dir, 'tones.m4a'), { tools, vad: new EnergyVad(), recognizer }, { plan: { load: () => plan, save: () => {} } });
    const plain = await transcribeFile(join(dir, 'tones.m4a'), { tools, vad: new EnergyVad(), recognizer: new FakeRecognizer() });
    expect(planned).toEqual(plain);
    expect(recognizer.calls.some((c) => c.start === 0 && c.end === 0.5)).toBe(false);
  });
});

const readingFile = join(shared, 'audio/asr/ljspeech_LJ001-0001.flac');

/** Keeps what each chunk's recognition was handed. */
class Capturing extends FakeRecognizer {
  heard: Float32Array[] = [];
  override async recognize(pcm: Float32Array, options: { offset?: number; signal?: AbortSignal } = {}) {
    this.heard.push(pcm);
    return super.recognize(pcm, options);
  }
}

describe('transcribeBlocks on noisy speech', () => {
  it.skipIf(!existsSync(readingFile))(
    'hands the recognizer noisy chunks denoised and clean ones as they are; the diarizer hears the recording',
    async () => {
      const clean = await decodeAudioToArray(readingFile, tools);
      // Seeded white noise 10 dB under the speech's power (well under the 25 dB at which chunks count as noisy).
      let seed = 1;
      const noise = Float32Array.from({ length: clean.length }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 2);
      const power = (x: Float32Array) => x.reduce((s, v) => s + v * v, 0) / x.length;
      const gain = Math.sqrt(power(clean) / power(noise) / 10);
      const noisy = clean.map((v, i) => v + gain * noise[i]!);
      const made: Float32Array[] = [];
      const denoiser = {
        id: 'halving',
        async denoise(pcm: Float32Array) {
          made.push(pcm.map((v) => v / 2));
          return made.at(-1)!;
        },
      };
      class Listening implements Diarizer {
        heard: Float32Array | null = null;
        async diarize(pcm: Float32Array) {
          this.heard = pcm.slice();
          return { turns: [], profiles: {} };
        }
      }
      const vad = new SileroVad();
      try {
        const quiet = new Capturing();
        await transcribeBlocks(secondBlocks(clean), { tools, vad, recognizer: quiet, denoiser, concurrency: 1 });
        expect(quiet.heard.length).toBeGreaterThan(0);
        expect(made).toEqual([]);

        const loud = new Capturing();
        const diarizer = new Listening();
        await transcribeBlocks(secondBlocks(noisy), { tools, vad, recognizer: loud, denoiser, diarizer, concurrency: 1 });
        expect(loud.heard.length).toBeGreaterThan(0);
        expect(made.length).toBe(loud.heard.length);
        loud.heard.forEach((pcm, i) => expect(pcm).toBe(made[i]));
        // The diarizer gets the levelled recording, noise and all (one peak: a scaled copy of the input).
        const ratio = diarizer.heard![20_000]! / noisy[20_000]!;
        expect(diarizer.heard![90_000]! / noisy[90_000]!).toBeCloseTo(ratio, 4);
      } finally {
        await vad.close();
      }
    },
    60_000,
  );
});

describe('transcribeBlocks on reverberant speech', () => {
  it.skipIf(!existsSync(readingFile))(
    'hands the recognizer reverberant chunks dereverberated, before the noise check, and dry ones as they are',
    async () => {
      const dry = await decodeAudioToArray(readingFile, tools);
      const wet = convolve(dry, syntheticRoom(0.6, 0));
      const wpe = createWpeDereverberator();
      const calls: Array<{ input: Float32Array; output: Float32Array; applied: boolean }> = [];
      const dereverberator = {
        id: 'recording',
        async dereverberate(pcm: Float32Array) {
          const out = await wpe.dereverberate(pcm);
          calls.push({ input: pcm, output: out.pcm, applied: out.applied });
          return out;
        },
      };
      // A denoiser that keeps what it is given: wet chunks read under 25 dB SNR, so it shows what the noise check read.
      const checked: Float32Array[] = [];
      const noiseCheck = { id: 'keeping', denoise: async (pcm: Float32Array) => (checked.push(pcm), pcm) };
      const vad = new SileroVad();
      try {
        const asRecorded = new Capturing();
        await transcribeBlocks(secondBlocks(dry), { tools, vad, recognizer: asRecorded, dereverberator, concurrency: 1 });
        expect(calls.length).toBe(asRecorded.heard.length);
        expect(calls.every((c) => !c.applied)).toBe(true);
        asRecorded.heard.forEach((pcm, i) => expect(pcm).toBe(calls[i]!.input));

        calls.length = 0;
        const inRoom = new Capturing();
        await transcribeBlocks(secondBlocks(wet), { tools, vad, recognizer: inRoom, dereverberator, denoiser: noiseCheck, concurrency: 1 });
        expect(calls.length).toBe(inRoom.heard.length);
        expect(calls.every((c) => c.applied)).toBe(true);
        inRoom.heard.forEach((pcm, i) => {
          expect(pcm).toBe(calls[i]!.output);
          expect(pcm).not.toBe(calls[i]!.input);
        });
        // The noise check reads the dereverberated chunk: what reaches the denoiser is that chunk.
        expect(checked.length).toBeGreaterThan(0);
        checked.forEach((pcm) => expect(calls.some((c) => c.output === pcm)).toBe(true));
      } finally {
        await vad.close();
      }
    },
    60_000,
  );
});
