/**
 * Sentence ends written into transcripts (src/service/speech/text/sentences.ts: pauses and pitch fall)
 * against the references' punctuation, on ../shared/audio/asr transcribed as the service does
 * (transcribeFile: Silero VAD, PocketSphinx pool, the text writer). Scored by
 * src/service/speech/scoring/sentence-ends.ts (inner ends only, ±1 word), per half (bench/lib/halves.ts).
 * References without any punctuation (LibriSpeech, commands) say nothing about sentence ends and are left
 * out. The rule's thresholds were first set by looking at four amateur clips (readable.audio.test.ts);
 * those are reported apart.
 *
 * The words' pause and pitch-fall cues are kept (--cues FILE, default under the OS temp folder), so
 * `--grid` can try other thresholds on them without decoding again: the grid is ranked on the tuning half
 * only and the chosen row is then reported on the test half.
 *
 *   nice -n 10 node --import tsx bench/sentences/run.ts [--verbose] [--grid] [--cues FILE]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { scoreSentenceEnds, sumSentenceEnds, type SentenceEndScore } from '../../src/service/speech/scoring/sentence-ends';
import { pitchTrack, wordEndFalls } from '../../src/service/speech/text/pitch-cues';
import { SENTENCE_RULE, sentenceMarks, type SentenceCue, type SentenceRule } from '../../src/service/speech/text/sentences';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { readAsrSet } from '../lib/asr-set';
import { flagValue as argAfter } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const asrDir = path.join(sharedDir, 'audio/asr');
const verbose = process.argv.includes('--verbose');
const cuesFile = argAfter('--cues') ?? path.join(os.tmpdir(), 'takeline-sentence-cues.json');
/** The clips looked at while the rule's thresholds were first set (src/service/speech/text/readable.audio.test.ts). */
const LOOKED_AT = new Set(['amateur_LJ003-0014.flac', 'amateur_LJ003-0026.flac', 'amateur_LJ003-0072.flac', 'amateur_LJ003-0082.flac']);

interface Clip {
  file: string;
  group: 'tune' | 'test' | 'looked-at';
  reference: string;
  /** The transcript's text as the service wrote it. */
  text: string;
  cues: SentenceCue[];
}

async function transcribeAll(): Promise<Clip[]> {
  const files = readAsrSet(asrDir).filter((f) => /[.,!?;]/.test(f.reference));
  const tools = resolveMediaTools();
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer({ workers: 2 });
  const clips: Clip[] = [];
  try {
    for (const f of files) {
      const file = path.join(asrDir, f.file);
      const transcript = await transcribeFile(file, { tools, vad, recognizer });
      const words = transcript.segments.flatMap((s) => s.words);
      // The writer's cues, over the whole clip (the pipeline takes them per chunk; a clip is one or two).
      const falls = wordEndFalls(pitchTrack(await decodeAudioToArray(file, tools)), words);
      clips.push({
        file: f.file,
        group: LOOKED_AT.has(f.file) ? 'looked-at' : f.half,
        reference: f.reference,
        text: transcript.text,
        cues: words.map((w, i) => ({ word: w.word.toLowerCase().replace(/[.,]$/, ''), start: w.start, end: w.end, fall: falls[i] ?? null })),
      });
    }
  } finally {
    await recognizer.close();
    await vad.close();
  }
  return clips;
}

/** The clip's words written with a rule's marks (case does not matter to the scorer). */
function written(clip: Clip, rule: SentenceRule): string {
  const marks = sentenceMarks(clip.cues, null, rule);
  return clip.cues.map((c, i) => c.word + marks[i]).join(' ');
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)}%` : '–');
function row(label: string, scores: SentenceEndScore[]): string {
  const t = sumSentenceEnds(scores);
  const right = t.hypothesisEnds - t.falseEnds;
  const f1 = t.referenceEnds + t.hypothesisEnds ? (2 * t.found) / (t.referenceEnds + t.hypothesisEnds) : 0;
  return `${label.padEnd(40)} ${String(scores.length).padStart(5)} ${String(t.referenceEnds).padStart(8)} ${String(t.found).padStart(6)} ${pct(t.found, t.referenceEnds).padStart(7)} ${String(t.hypothesisEnds).padStart(8)} ${String(t.falseEnds).padStart(6)} ${pct(right, t.hypothesisEnds).padStart(10)} ${f1.toFixed(2).padStart(5)}`;
}
const header = `${'rule, group'.padEnd(40)} files ref ends  found  recall  written  false  precision    F1`;

const started = Date.now();
let clips: Clip[];
if (process.argv.includes('--grid') && existsSync(cuesFile)) {
  clips = JSON.parse(readFileSync(cuesFile, 'utf8')) as Clip[];
  console.log(`cues of ${clips.length} clips from ${cuesFile}`);
} else {
  clips = await transcribeAll();
  writeFileSync(cuesFile, JSON.stringify(clips));
  console.log(`${clips.length} punctuated clips transcribed in ${((Date.now() - started) / 1000).toFixed(1)} s; cues kept in ${cuesFile}`);
}
const groups = ['tune', 'test', 'looked-at'] as const;
const of = (group: string, score: (c: Clip) => SentenceEndScore) => clips.filter((c) => c.group === group).map(score);

console.log('inner sentence ends, ±1 word');
console.log(header);
for (const g of groups) console.log(row(`service transcript, ${g}`, of(g, (c) => scoreSentenceEnds(c.reference, c.text))));
if (verbose) {
  for (const c of clips) {
    const s = scoreSentenceEnds(c.reference, c.text);
    if (s.referenceEnds || s.hypothesisEnds) console.log(`${c.file} [${c.group}] ${JSON.stringify(s)}\n  ref: ${c.reference}\n  hyp: ${c.text}`);
  }
}

if (process.argv.includes('--grid')) {
  const rules: SentenceRule[] = [];
  for (const shortPause of [0.3, 0.45, 0.6, 0.8])
    for (const fall of [1.5, 3, 4.5, 6])
      for (const longPause of [1.2, 1.6])
        rules.push({ shortPause, fall, longPause, unknownPitchPause: Math.max(shortPause, SENTENCE_RULE.unknownPitchPause) });
  const f1 = (scores: SentenceEndScore[]) => {
    const t = sumSentenceEnds(scores);
    return t.referenceEnds + t.hypothesisEnds ? (2 * t.found) / (t.referenceEnds + t.hypothesisEnds) : 0;
  };
  const label = (r: SentenceRule) => `pause ≥${r.shortPause} s, fall ≥${r.fall} st, long ≥${r.longPause} s`;
  const ranked = rules
    .map((r) => ({ r, tune: f1(of('tune', (c) => scoreSentenceEnds(c.reference, written(c, r)))) }))
    .sort((a, b) => b.tune - a.tune);
  console.log(`\ngrid of ${rules.length} rules on the cues, ranked by F1 on the tuning half (top 5, then the shipped rule)`);
  console.log(header);
  for (const { r } of [...ranked.slice(0, 5), { r: SENTENCE_RULE }]) {
    for (const g of groups) console.log(row(`${label(r)}, ${g}`, of(g, (c) => scoreSentenceEnds(c.reference, written(c, r)))));
  }
}
