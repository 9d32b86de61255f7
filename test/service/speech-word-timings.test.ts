import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { createPocketSphinxAligner, type ClosableAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx/model';
import { resampleMono } from '../../src/service/media/resample';
import { resolveMediaTools } from '../../src/service/media/tools';
import { createFestivalHts, festivalHtsMissing } from '../../src/service/speech/synthesis/festival-hts';
import { wordTimings } from '../../src/service/speech/synthesis/word-timings';
import type { SpokenWord } from '../../src/service/speech/synthesis/voice';

/** The sentences the bars below were set on. */
const TEXTS = [
  'For although the Chinese took impressions from wood blocks engraved in relief, they never printed from movable types.',
  'The quick brown fox jumps over the lazy dog near the river bank.',
  'Printing, in the only sense with which we are at present concerned, differs from most if not from all the arts and crafts.',
];
/** Held out: sentences the bars were not set on (pauses, stops and clusters of their own), checked against the same bars. */
const HELD_OUT = [
  'After the storm, the fishermen dragged their boats up past the church and waited.',
  'Cut the string, tape the parcel shut, and post it to Brisbane before six.',
  'Whether or not the committee agrees, the budget must be settled by Tuesday.',
];

const norm = (w: string) => w.toLowerCase().replace(/[^a-z0-9$']/g, '');

/** |Δ| in ms of every word's start and end between two timings of the same words. */
function deviations(a: SpokenWord[], b: SpokenWord[]): number[] {
  expect(a.map((w) => norm(w.word))).toEqual(b.map((w) => norm(w.word)));
  return a.flatMap((w, i) => [Math.abs(w.start - b[i]!.start) * 1000, Math.abs(w.end - b[i]!.end) * 1000]);
}

function summary(ms: number[]) {
  const sorted = [...ms].sort((x, y) => x - y);
  return { count: ms.length, median: sorted[Math.floor(sorted.length / 2)]!, within30: ms.filter((d) => d <= 30).length / ms.length, worst: sorted.at(-1)! };
}

const ready = festivalHtsMissing(process.env) === null && pocketSphinxAvailable(process.env).ok;

describe.skipIf(!ready)('speech with word timings (POST /v1/audio/speech, timestamp_granularities)', () => {
  let svc: ServiceProcess;
  let aligner: ClosableAligner;
  const tools = resolveMediaTools(process.env);
  const speech = (body: Record<string, unknown>) =>
    fetch(`${svc.url}/v1/audio/speech`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    svc = await startServiceProcess();
    // The independent reference: a forced alignment of the audio the route returned, made here.
    aligner = createPocketSphinxAligner({ env: process.env });
  }, 120_000);
  afterAll(async () => {
    await aligner?.close();
    await svc?.stop();
  });

  /** The route's answer, and a forced alignment of its audio (decoded from 24 kHz 16-bit PCM). */
  async function spokenAndAligned(model: string, voice: string, text: string) {
    const res = await speech({ model, voice, input: text, response_format: 'pcm', timestamp_granularities: ['word'] });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const answer = (await res.json()) as { audio: string; format: string; sample_rate: number; duration: number; voice: string; timings: string; words: SpokenWord[] };
    const pcm = Buffer.from(answer.audio, 'base64');
    const samples = new Float32Array(pcm.length / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2) / 32768;
    expect(samples.length / 24000).toBeCloseTo(answer.duration, 1);
    const aligned = await aligner.align(await resampleMono(tools, samples, 24000, 16000), text);
    return { answer, aligned };
  }

  // Measured against PocketSphinx (10 ms frames, three-frame minimum phones), the less precise of the two: most
  // boundaries agree within 30 ms; those that do not are next to pauses and stop closures, where the aligner
  // puts its silence on the other side of the word edge (worst seen: 175 ms for HTS, 262 ms for the diphone voice).
  for (const [model, voice, within30] of [
    ['festival-hts', 'slt', 0.85],
    ['festival-diphone', 'kal', 0.75],
  ] as const) {
    for (const [half, texts] of [['tuning', TEXTS], ['held-out', HELD_OUT]] as const) {
      it(`${model} (${half} sentences): the words come from the engine's phone timings and agree with a forced alignment of the audio`, async () => {
        const all: number[] = [];
        const misses: string[] = [];
        for (const text of texts) {
          const { answer, aligned } = await spokenAndAligned(model, voice, text);
          expect(answer).toMatchObject({ format: 'pcm', sample_rate: 24000, voice: `${model}/${voice}`, timings: 'engine' });
          const ms = deviations(answer.words, aligned);
          all.push(...ms);
          // Which edges miss (engine − aligner, ms), for reading where the two disagree.
          ms.forEach((d, k) => {
            const i = k >> 1;
            const edge = k % 2 ? 'end' : 'start';
            if (d > 30) misses.push(`${answer.words[i]!.word}.${edge} ${Math.round((answer.words[i]![edge] - aligned[i]![edge]) * 1000)}`);
          });
        }
        const s = summary(all);
        console.log(`${model} (${half}): engine vs forced alignment, |Δ| of word starts and ends: ${JSON.stringify(s)}; misses: ${misses.join(', ')}`);
        expect(s.median).toBeLessThanOrEqual(15);
        expect(s.within30).toBeGreaterThanOrEqual(within30);
      }, 240_000);
    }
  }

  it('a voice without timings of its own (flite) is aligned; words in order, on the audio, one per word of the text', async () => {
    const text = TEXTS[1]!;
    const { answer } = await spokenAndAligned('flite', 'slt', text);
    expect(answer.timings).toBe('alignment');
    expect(answer.words.map((w) => norm(w.word))).toEqual(text.split(/\s+/).map(norm));
    for (let i = 0; i < answer.words.length; i++) {
      const w = answer.words[i]!;
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.end).toBeLessThanOrEqual(answer.duration + 1e-6);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(answer.words[i - 1]!.end - 1e-6);
    }
  }, 120_000);

  it("the aligner fallback, checked against festival's own phone timings of the same audio", async () => {
    const voice = createFestivalHts(process.env);
    try {
      const all: number[] = [];
      for (const text of TEXTS) {
        const spoken = await voice.synthesize(text, { voice: 'slt' });
        const forced = await wordTimings(spoken, text, { tools, aligner: () => aligner, engineTimings: false });
        expect(forced.timings).toBe('alignment');
        all.push(...deviations(forced.words, spoken.words!));
      }
      const s = summary(all);
      console.log(`fallback alignment vs festival-hts phone timings: ${JSON.stringify(s)}`);
      expect(s.median).toBeLessThanOrEqual(15);
      expect(s.within30).toBeGreaterThanOrEqual(0.85);
    } finally {
      await voice.close();
    }
  }, 240_000);

  it('streams as before without the option, and refuses an unknown granularity', async () => {
    const plain = await speech({ model: 'flite', voice: 'slt', input: 'Hello.', response_format: 'wav' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/audio\/wav/);
    const bad = await speech({ model: 'flite', voice: 'slt', input: 'Hello.', timestamp_granularities: ['segment'] });
    expect(bad.status).toBe(400);
  });
});
