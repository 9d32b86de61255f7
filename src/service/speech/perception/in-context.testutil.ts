/**
 * A reading as the service meets it: one reader's sentences (../shared/audio/asr) joined with short gaps, one
 * of them played faster or slower with the pitch kept (ffmpeg atempo), transcribed as the service transcribes
 * (transcribeFile: Silero VAD, PocketSphinx pool, the text writer; its lines as they come, so a sentence may
 * be split) and analysed by runAnalysis with the real toolkit. Each line is tied to the sentence it mostly
 * lies in, so a test can ask how the changed sentence's lines and the untouched ones read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { audioDir } from '../../../../test/helpers/paths';
import { whiteNoise } from '../../../../test/helpers/signals';
import type { AnalysisSegment } from '../../../shared/schemas/analysis';
import type { AnalysisRequest, LineInput } from '../../analysis/protocol';
import { runAnalysis, type LineMeasure } from '../../analysis/run-analysis';
import { createToolkit } from '../../analysis/toolkit';
import { resolveMediaTools } from '../../media/tools';
import { transcribeFile } from '../pipeline/transcribe';
import { resolvePocketSphinxModel } from '../recognition/pocketsphinx/model';
import { createPocketSphinxRecognizer } from '../recognition/pocketsphinx-recognizer';
import { SAMPLE_RATE } from '../types';
import { createSileroVad } from '../vad/silero';
import { ffmpegPcm, writeWav } from './transformations.testutil';

const GAP_SECONDS = 0.8;
const NOISE_DBFS = -70;

export interface ReadingLine {
  segment: AnalysisSegment;
  measure: LineMeasure;
  /** The sentence (file name) the line mostly lies in, and that sentence's tempo. */
  sentence: string;
  tempo: number;
}

/**
 * `sentences` in order, each played at its tempo (1 = untouched). With `sentenceCache` (a JSON file) each
 * sentence version is transcribed on its own and its lines kept there, so a bench can build many readings
 * from the same sentences without decoding them again; without it the whole reading is transcribed at once.
 */
export async function analyseReading(dir: string, sentences: ReadonlyArray<{ name: string; tempo: number }>, sentenceCache?: string): Promise<ReadingLine[]> {
  const gap = Math.round(GAP_SECONDS * SAMPLE_RATE);
  const clips = sentences.map((s) => ({
    ...s,
    pcm: ffmpegPcm(['-i', path.join(audioDir, 'asr', `${s.name}.flac`), ...(s.tempo === 1 ? [] : ['-af', `atempo=${s.tempo}`])]),
  }));
  const total = clips.reduce((n, c) => n + c.pcm.length + gap, gap);
  const pcm = whiteNoise(total, 10 ** (NOISE_DBFS / 20), 11);
  const spans: Array<{ name: string; tempo: number; start: number; end: number }> = [];
  let at = gap;
  for (const c of clips) {
    for (let i = 0; i < c.pcm.length; i++) pcm[at + i] = pcm[at + i]! + c.pcm[i]!;
    spans.push({ name: c.name, tempo: c.tempo, start: at / SAMPLE_RATE, end: (at + c.pcm.length) / SAMPLE_RATE });
    at += c.pcm.length + gap;
  }
  const file = path.join(dir, 'reading.wav');
  writeWav(file, pcm);

  const tools = resolveMediaTools();
  type Engines = { vad: ReturnType<typeof createSileroVad>; recognizer: ReturnType<typeof createPocketSphinxRecognizer> };
  const engines: { current: Engines | null } = { current: null };
  const transcribe = async (wav: string, offset: number): Promise<LineInput[]> => {
    engines.current ??= { vad: createSileroVad(), recognizer: createPocketSphinxRecognizer({ workers: 2 }) };
    const transcript = await transcribeFile(wav, { tools, ...engines.current });
    const at = (t: number) => Math.round((t + offset) * 1000) / 1000;
    return transcript.segments.map((s) => ({
      id: s.id,
      speaker: s.speaker,
      start: at(s.start),
      end: at(s.end),
      text: s.text,
      words: s.words.map((w) => ({ word: w.word, start: at(w.start), end: at(w.end) })),
    }));
  };
  let lines: LineInput[] = [];
  try {
    if (!sentenceCache) lines = await transcribe(file, 0);
    else {
      const cache = (fs.existsSync(sentenceCache) ? JSON.parse(fs.readFileSync(sentenceCache, 'utf8')) : {}) as Record<string, LineInput[]>;
      for (const [i, c] of clips.entries()) {
        const key = `${c.name}@${c.tempo}`;
        if (!cache[key]) {
          const wav = path.join(dir, 'sentence.wav');
          writeWav(wav, c.pcm);
          cache[key] = await transcribe(wav, 0);
          fs.writeFileSync(sentenceCache, JSON.stringify(cache));
        }
        for (const l of cache[key]!) {
          const shift = (t: number) => Math.round((t + spans[i]!.start) * 1000) / 1000;
          lines.push({ ...l, id: lines.length, start: shift(l.start), end: shift(l.end), words: l.words.map((w) => ({ ...w, start: shift(w.start), end: shift(w.end) })) });
        }
      }
    }
  } finally {
    await engines.current?.recognizer.close();
    await engines.current?.vad.close();
  }

  const request: AnalysisRequest = { file, tools, modelsDir: null, dictionary: resolvePocketSphinxModel().dict, lines, parts: {}, doneLines: [] };
  const kit = createToolkit(request);
  const segments = new Map<number, AnalysisSegment>();
  let measures: LineMeasure[] = [];
  try {
    await runAnalysis(request, kit, (m) => {
      if (m.type === 'lines') for (const l of m.lines) segments.set(l.id, l);
      if (m.type === 'part' && m.name === 'measures') measures = m.value as LineMeasure[];
    });
  } finally {
    await kit.close();
  }
  const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  return measures.map((m) => {
    const own = spans.reduce((best, s) => (overlap(m, s) > overlap(m, best) ? s : best));
    return { segment: segments.get(m.id)!, measure: m, sentence: own.name, tempo: own.tempo };
  });
}

/** Print one row per line: what a failing run shows. */
export function readingTable(lines: ReadonlyArray<ReadingLine>): void {
  console.table(
    lines.map((l) => ({
      sentence: l.sentence.replace(/^amateur_/, ''),
      tempo: l.tempo,
      start: l.segment.start,
      end: l.segment.end,
      syllables: l.measure.syllables,
      nuclei: l.measure.nuclei,
      seconds: l.measure.articulation_seconds,
      rate: l.segment.prosody.articulation_rate,
      pace_vs: l.segment.prosody.pace_vs_speaker,
      labels: l.segment.perception?.delivery.join(','),
    })),
  );
}
