import { describe, expect, it } from 'vitest';
import type { AnalysisSegment } from '../../shared/schemas/analysis';
import { PART } from './document';
import type { AnalysisMessage, AnalysisRequest, LineInput } from './protocol';
import { runAnalysis, speechWithin, withSignalPace, type AnalysisToolkit, type LineMeasure } from './run-analysis';
import { overallProgress } from './stages';
import { createEstimateListener } from '../speech/perception/listener';
import { measureProsody } from '../speech/prosody/measure';

const SR = 16000;

/** Three lines of a 200 Hz tone with silence between; S1, S2, S1. */
function recording(): { pcm: Float32Array; lines: LineInput[] } {
  const pcm = new Float32Array(SR * 9);
  const lines: LineInput[] = [
    { id: 0, speaker: 'S1', start: 0.5, end: 2.5, text: 'one two three', words: [] },
    { id: 1, speaker: 'S2', start: 3.5, end: 5.5, text: 'four five', words: [] },
    { id: 2, speaker: 'S1', start: 6.5, end: 8.5, text: 'six seven', words: [] },
  ];
  for (const l of lines) {
    const words = l.text.split(' ');
    const step = (l.end - l.start - 0.4) / words.length;
    l.words = words.map((word, i) => ({ word, start: l.start + 0.2 + i * step, end: l.start + 0.2 + (i + 0.8) * step }));
    for (let i = Math.round((l.start + 0.2) * SR); i < Math.round((l.end - 0.2) * SR); i++) pcm[i] = 0.2 * Math.sin((2 * Math.PI * 200 * i) / SR);
  }
  return { pcm, lines };
}

/** A toolkit whose measures are simple functions of the signal, counting what it was asked to do. */
function fakeKit(pcm: Float32Array) {
  const calls = { decode: 0, speech: 0, tag: 0, prosody: 0, quality: 0 };
  const kit: AnalysisToolkit = {
    warnings: ['The dnsmos model is not installed.'],
    decode: async () => (calls.decode++, pcm),
    detectSpeech: async () => (calls.speech++, [{ start: 0.7, end: 2.3 }, { start: 3.7, end: 5.3 }, { start: 6.7, end: 8.3 }]),
    tag: async () => (calls.tag++, { hop: 0.48, window: 0.96, labels: ['Speech'], patches: 0, scores: new Float32Array(0) }),
    audience: () => ({ events: [], music: [], ambience_profile: [{ start: 0, end: 9, label: 'Silence', score: 0.9 }] }),
    noise: () => ({ noise_db: -90 }),
    conditions: () => [],
    lineQuality: () => (calls.quality++, { snr_db: 60 }),
    prosody: (_pcm, line) => {
      calls.prosody++;
      return {
        energy_db: -17,
        energy_range_db: 3,
        voiced_ratio: 1,
        pitch_hz: line.start > 3 && line.start < 6 ? 100 : 200,
        pitch_range_st: 1,
        pitch_variability_st: 0.2,
        pitch_perturbation: 0.001,
        amplitude_perturbation: 0.01,
        hnr_db: 30,
        track: null,
      };
    },
    quality: () => ({ snr_db: 60, noise_db: -90, clipping_ratio: 0, low_frequency_share_db: -30, wind_index: 0, plosives: 0, mic: 'near', issues: [] }),
    perceivedQuality: async () => null,
    qualityScore: () => 0.9,
    ambience: () => ({ layers: [], sound: { label: null, level_db: null, margin_db: null }, competes: false, source: 'measured' }),
    syllables: () => ({ count: (w: string) => (w === 'seven' ? 2 : 1) }),
    listener: () => createEstimateListener(),
  };
  return { kit, calls };
}

function request(lines: LineInput[], parts: Record<string, unknown> = {}, published: AnalysisSegment[] = []): AnalysisRequest {
  return { file: 'x.flac', tools: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' }, modelsDir: null, dictionary: '', lines, parts, doneLines: published.map((l) => l.id), published };
}

/** The last version of each published line, as the store keeps them. */
function stored(messages: AnalysisMessage[], ids?: number[]): AnalysisSegment[] {
  const byId = new Map<number, AnalysisSegment>();
  for (const m of messages) if (m.type === 'lines') for (const l of m.lines) byId.set(l.id, l);
  return [...byId.values()].filter((l) => !ids || ids.includes(l.id)).sort((a, b) => a.id - b.id);
}

describe('runAnalysis', () => {
  it('runs the stages in order, publishes whole lines one by one, and ends with every line', async () => {
    const { pcm, lines } = recording();
    const { kit } = fakeKit(pcm);
    const messages: AnalysisMessage[] = [];
    await runAnalysis(request(lines), kit, (m) => messages.push(m));
    const stages = messages.filter((m) => m.type === 'stage').map((m) => (m as { stage: string }).stage);
    expect([...new Set(stages)]).toEqual(['decoding', 'speech', 'events', 'conditions', 'prosody', 'baselines', 'quality', 'listening', 'speakers', 'moments', 'summary']);
    const progress = messages.flatMap((m) => (m.type === 'stage' ? [overallProgress(m.stage, m.fraction)] : []));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const all = messages.flatMap((m) => (m.type === 'lines' ? m.lines : [])) as AnalysisSegment[];
    // Published measured (quality stage), then again listened to (listening stage), each time whole.
    expect(all.map((l) => l.id)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(all.map((l) => l.perception === null)).toEqual([true, true, true, false, false, false]);
    const published = all.slice(0, 3);
    // Lines are only published after the baselines: relative values are filled in.
    const partNames = messages.flatMap((m) => (m.type === 'part' ? [m.name] : []));
    expect(partNames.indexOf(PART.baselines)).toBeLessThan(messages.findIndex((m) => m.type === 'lines') - 0);
    const [first, second] = published;
    expect(first!.prosody.pitch_vs_speaker_st).toBe(0);
    expect(second!.prosody.pitch_vs_speaker_st).toBe(0);
    expect(first!.prosody.articulation_rate).toBeGreaterThan(0);
    expect(first!.speech_start).toBeGreaterThanOrEqual(0.6);
    expect(first!.speech_end).toBeLessThanOrEqual(2.4);
    expect(first!.perception).toBeNull();
    expect(first!.quality.sources).toEqual(['measured']);
    expect(messages.filter((m) => m.type === 'part' && m.name === PART.warnings)).toHaveLength(1);
    const listened = stored(messages);
    for (const l of listened) {
      expect(l.perception).toMatchObject({ source: 'estimate', start: l.start, end: l.end });
      expect(l.delivery!.score).toBeGreaterThanOrEqual(0);
      expect(l.prosody).toEqual(published[l.id]!.prosody);
    }
    // Recording-level parts come after the lines, speakers first, their summaries with the summary.
    const order = messages.flatMap((m, i) => (m.type === 'part' ? [[m.name, i] as const] : []));
    const at = (name: string) => order.filter(([n]) => n === name).map(([, i]) => i);
    const lastLine = messages.map((m) => m.type).lastIndexOf('lines');
    expect(at(PART.speakers)[0]).toBeGreaterThan(lastLine);
    expect(at(PART.moments)[0]).toBeGreaterThan(at(PART.speakers)[0]!);
    expect(at(PART.summary)[0]).toBeGreaterThan(at(PART.moments)[0]!);
    const profiles = (messages[at(PART.speakers).at(-1)!] as { value: Record<string, { summary: string; trajectory: unknown[] }> }).value;
    expect(Object.keys(profiles).sort()).toEqual(['S1', 'S2']);
    expect(profiles.S1!.trajectory).toHaveLength(2);
    expect(profiles.S1!.summary).toMatch(/^S1 speaks for/);
  });

  it('resumes mid-listening: measured lines are listened to, not measured again', async () => {
    const { pcm, lines } = recording();
    const first = fakeKit(pcm);
    const messages: AnalysisMessage[] = [];
    await runAnalysis(request(lines), first.kit, (m) => messages.push(m));
    const early = new Set([PART.speakers, PART.moments, PART.summary, PART.warnings] as string[]);
    const parts = Object.fromEntries(messages.flatMap((m) => (m.type === 'part' && !early.has(m.name) ? [[m.name, m.value]] : [])));
    const measuredOnly = messages.flatMap((m) => (m.type === 'lines' ? m.lines : [])).slice(0, 3);
    const again = fakeKit(pcm);
    const resumed: AnalysisMessage[] = [];
    await runAnalysis(request(lines, parts, measuredOnly), again.kit, (m) => resumed.push(m));
    expect(again.calls).toMatchObject({ prosody: 0, quality: 0 });
    expect(resumed.flatMap((m) => (m.type === 'lines' ? m.lines.map((l) => [l.id, l.perception !== null]) : []))).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ]);
    expect(stored(resumed)).toEqual(stored(messages));
  });

  it('resumes: stored parts are not recomputed and published lines are not measured again', async () => {
    const { pcm, lines } = recording();
    const first = fakeKit(pcm);
    const messages: AnalysisMessage[] = [];
    await runAnalysis(request(lines), first.kit, (m) => messages.push(m));
    const parts = Object.fromEntries(messages.flatMap((m) => (m.type === 'part' && m.name !== PART.warnings ? [[m.name, m.value]] : [])));
    const again = fakeKit(pcm);
    const resumed: AnalysisMessage[] = [];
    await runAnalysis(request(lines, parts, stored(messages, [0, 1])), again.kit, (m) => resumed.push(m));
    expect(again.calls).toMatchObject({ decode: 1, speech: 0, prosody: 0, quality: 0 });
    // Line 2 is finished (quality) and listened to; the stored lines are neither.
    expect(resumed.flatMap((m) => (m.type === 'lines' ? m.lines.map((l) => l.id) : []))).toEqual([2, 2]);
    expect(resumed.filter((m) => m.type === 'part').map((m) => (m as { name: string }).name)).toEqual([PART.warnings]);
  });

  it('stops when aborted', async () => {
    const { pcm, lines } = recording();
    const { kit } = fakeKit(pcm);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(runAnalysis(request(lines), kit, () => {}, controller.signal)).rejects.toThrow('stop');
  });

  it('measures each line\'s syllable nuclei, which follow the signal where the recognizer dropped words (kept, not yet published)', async () => {
    // S1's two lines: 8 syllables in 2 s, then 12 in 2 s (1.5× as fast) of which the recognizer wrote one word
    // per two syllables. Counting the words, the fast line would read slower (3 against 4 syllables a second).
    const pcm = new Float32Array(SR * 7);
    const voice = (t: number) => {
      let x = 0;
      for (let k = 1; k <= 8; k++) x += Math.sin(2 * Math.PI * k * 140 * t) / k;
      return x / 2;
    };
    const lines: LineInput[] = [];
    const spans: [number, number, number][] = [
      [0.5, 8, 8],
      [3.5, 12, 6],
    ];
    for (const [id, [start, syllables, words]] of spans.entries()) {
      const from = start + 0.25;
      const each = 2 / syllables;
      for (let i = Math.round(from * SR); i < Math.round((from + 2) * SR); i++) {
        const t = i / SR - from;
        pcm[i] = 0.4 * (0.1 + 0.9 * Math.sin((Math.PI * (t % each)) / each) ** 2) * voice(i / SR);
      }
      const per = 2 / words;
      lines.push({
        id,
        speaker: 'S1',
        start,
        end: start + 2.5,
        text: 'word '.repeat(words).trim(),
        words: Array.from({ length: words }, (_, k) => ({ word: 'word', start: from + k * per, end: from + (k + 1) * per })),
      });
    }
    const { kit } = fakeKit(pcm);
    kit.detectSpeech = async () => [{ start: 0.75, end: 2.75 }, { start: 3.75, end: 5.75 }];
    kit.prosody = (audio, line, speech) => measureProsody(audio, SR, line, speech);
    kit.syllables = () => ({ count: () => 2 });
    const messages: AnalysisMessage[] = [];
    await runAnalysis(request(lines), kit, (m) => messages.push(m));
    const [slow, fast] = stored(messages);
    // Published: the recognized words' syllables, so the fast line reads slower (6 × 2 against 8 × 2 in the same time).
    expect(fast!.prosody.articulation_rate!).toBeLessThan(slow!.prosody.articulation_rate!);
    // Kept: the nuclei follow the speech; combined per speaker (withSignalPace) the fast line reads ~1.5× as fast.
    const measures = messages.flatMap((m) => (m.type === 'part' && m.name === PART.measures ? [m.value as LineMeasure[]] : []))[0]!;
    const [slowNuclei, fastNuclei] = measures.map((m) => m.nuclei!);
    expect(fastNuclei! / slowNuclei!).toBeGreaterThan(1.35);
    expect(fastNuclei! / slowNuclei!).toBeLessThan(1.65);
    const [a, b] = withSignalPace(measures);
    expect(b!.prosody.articulation_rate! / a!.prosody.articulation_rate!).toBeGreaterThan(1.35);
  });

  it('clips speech spans to a line', () => {
    expect(speechWithin([{ start: 0, end: 1 }, { start: 1.5, end: 3 }, { start: 4, end: 5 }], { start: 0.5, end: 2 })).toEqual([
      { start: 0.5, end: 1 },
      { start: 1.5, end: 2 },
    ]);
  });
});
