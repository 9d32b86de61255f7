import crypto from 'node:crypto';
import { ConflictError, InvalidInputError, issue, NotFoundError, UnavailableError } from '../errors';
import { decodeAudio } from '../media/decode';
import type { MediaTools } from '../media/tools';
import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import type { SessionStore } from '../storage/session-store';
import type { Stores } from '../storage/stores';
import type { RevisionRecord } from '../storage/revision-store';
import type { KeptStretch, ScriptAlignCheckpointStore } from '../storage/script-align-checkpoint-store';
import type { SessionSpeakerEditor } from '../speakers/session-speakers';
import { createPocketSphinxAligner } from '../speech/alignment/pocketsphinx-aligner';
import { alignTokens, anchorRuns, planStretches, type Stretch } from '../speech/alignment/script-anchors';
import { scriptLexicon } from '../speech/alignment/script-lexicon';
import { distribute, labelsForNames, lineStarts, orderTimes, speakersByOverlap } from '../speech/alignment/script-lines';
import { parseScript, type ParsedScript } from '../speech/alignment/script-text';
import { pocketSphinxAvailable, resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { normalizeWords } from '../speech/scoring/wer';
import { SAMPLE_RATE, type Aligner, type RecognizedWord, type Span, type Transcript, type TranscriptSegment } from '../speech/types';
import type { TranscriptEditor } from './transcript-edits';

/** Consecutive matches that make an anchor: three words in a row are almost never matched by chance. */
export const MIN_ANCHOR_RUN = 3;
/** Stretches aligned at once: enough to keep the decoders busy while the audio is read ahead. */
const IN_FLIGHT = 4;
/** The 409 of a second alignment of a recording while one runs (in this process, or on a team's workers). */
export const ALREADY_ALIGNING = 'A script is already being aligned to this recording.';

export interface TimedScriptWord extends RecognizedWord {
  /** True when the forced aligner placed the word; false when its time was interpolated. */
  aligned: boolean;
}

export interface ScriptAlignmentStats {
  words: number;
  /** Words the forced aligner placed. */
  aligned: number;
  /** Words whose times were spread over their stretch (out of the dictionary, or the stretch failed). */
  interpolated: number;
  stretches: number;
  /** Stretches the aligner could not decode at all (all their words interpolated). */
  failed_stretches: number;
  /** Script words inside anchor runs (matched to a recognised word in a run of at least three). */
  anchored: number;
  /** Words the dictionary lacked that were given espeak-ng pronunciations for the aligner. */
  pronounced: number;
}

/**
 * The stretches an earlier attempt of the same alignment aligned (their words are reused, not aligned again), and
 * where each stretch aligned now is kept, awaited before the stretch counts as done.
 */
export interface StretchCheckpoints {
  kept: readonly KeptStretch[];
  keep(stretch: KeptStretch): Promise<void>;
}

/** The kept stretch that is exactly this one (same words, same audio to the millisecond), if any. */
function keptStretch(kept: ReadonlyMap<number, KeptStretch>, s: Stretch): KeptStretch | undefined {
  const k = kept.get(s.from);
  const ms = (t: number) => Math.round(t * 1000);
  return k && k.to === s.to && ms(k.start) === ms(s.start) && ms(k.end) === ms(s.end) ? k : undefined;
}

/**
 * Times for every word of a script: anchored on the recognised words it shares, then each stretch between
 * cuts force-aligned to its audio as the audio is decoded (the recording is never held whole). A stretch
 * the aligner fails on has its words spread over it by length; the counts say how many. With `checkpoints`,
 * stretches already aligned are taken from them (`reused` counts them) and each new one is kept: the plan and
 * the aligner are deterministic, so the words are those of a run that aligned everything.
 */
export async function alignScriptWords(input: {
  script: ParsedScript;
  recognized: readonly RecognizedWord[];
  duration: number;
  audio: AsyncIterable<Float32Array>;
  aligner: Aligner;
  signal?: AbortSignal;
  checkpoints?: StretchCheckpoints;
}): Promise<{ words: TimedScriptWord[]; stats: Omit<ScriptAlignmentStats, 'pronounced'>; reused: number }> {
  const { script, recognized, duration, aligner, signal, checkpoints } = input;
  const keys = script.words.map((w) => w.key);
  const heard = recognized.map((w) => normalizeWords(w.word).join(' '));
  const runs = anchorRuns(alignTokens(keys, heard), MIN_ANCHOR_RUN);
  const stretches = planStretches(runs, recognized, keys.length, duration);
  const kept = new Map((checkpoints?.kept ?? []).map((k) => [k.from, k]));
  const out: TimedScriptWord[] = new Array(keys.length);
  let failed = 0;
  let reused = 0;

  const alignStretch = async (stretch: Stretch, pcm: Float32Array, done: KeptStretch | undefined) => {
    const texts = script.words.slice(stretch.from, stretch.to).map((w) => w.text);
    let words: RecognizedWord[] | null = null;
    if (done) {
      words = done.words;
      reused++;
    } else {
      if (pcm.length >= SAMPLE_RATE / 10) {
        try {
          words = await aligner.align(pcm, texts.join(' '), { offset: stretch.start, signal });
        } catch (error) {
          if (signal?.aborted) throw error;
        }
      }
      // An aligner stopped midway throws (above): what it returned is the whole stretch's, worth keeping.
      await checkpoints?.keep({ from: stretch.from, to: stretch.to, start: stretch.start, end: stretch.end, words });
    }
    if (!words || words.length !== texts.length || words.every((w) => w.confidence === 0)) {
      failed++;
      distribute(texts, stretch).forEach((s, k) => (out[stretch.from + k] = { word: texts[k]!, ...s, confidence: 0, aligned: false }));
      return;
    }
    // The aligner marks a word it interpolated with confidence 0 (out of vocabulary, or past where it got).
    words.forEach((w, k) => (out[stretch.from + k] = { ...w, word: texts[k]!, aligned: w.confidence > 0 }));
  };

  // Stretches are in time order: each is cut from the decoded blocks as soon as they cover it.
  const blocks: Array<{ at: number; pcm: Float32Array }> = [];
  let decoded = 0;
  let next = 0;
  const running = new Set<Promise<void>>();
  let stopped: { error: unknown } | undefined;
  const launch = async (stretch: Stretch) => {
    const done = keptStretch(kept, stretch);
    const from = Math.max(0, Math.floor(stretch.start * SAMPLE_RATE));
    const to = done ? from : Math.min(decoded, Math.ceil(stretch.end * SAMPLE_RATE));
    const pcm = new Float32Array(Math.max(0, to - from));
    for (const b of blocks) {
      const s = Math.max(from, b.at);
      const e = Math.min(to, b.at + b.pcm.length);
      if (e > s) pcm.set(b.pcm.subarray(s - b.at, e - b.at), s - from);
    }
    const job = alignStretch(stretch, pcm, done).finally(() => running.delete(job));
    // A stretch that throws (the alignment was stopped) stops the whole; it may settle before anything awaits it.
    job.catch((error: unknown) => (stopped ??= { error }));
    running.add(job);
    // Blocks before the next stretch's start are no longer needed (`next` already points at it).
    const keepFrom = next < stretches.length ? Math.floor(stretches[next]!.start * SAMPLE_RATE) : decoded;
    while (blocks.length && blocks[0]!.at + blocks[0]!.pcm.length <= keepFrom) blocks.shift();
    if (running.size >= IN_FLIGHT) await Promise.race(running);
  };
  try {
    for await (const block of input.audio) {
      signal?.throwIfAborted();
      blocks.push({ at: decoded, pcm: block });
      decoded += block.length;
      while (next < stretches.length && Math.ceil(stretches[next]!.end * SAMPLE_RATE) <= decoded) await launch(stretches[next++]!);
    }
    // The recording may decode a little shorter than the transcript's duration: the rest get what there is.
    while (next < stretches.length) await launch(stretches[next++]!);
    await Promise.all(running);
    if (stopped) throw stopped.error;
  } finally {
    // An alignment that stops leaves no stretch behind it still aligning, or being kept after it returned.
    await Promise.allSettled(running);
  }

  const words = orderTimes(out, duration);
  const aligned = words.filter((w) => w.aligned).length;
  const anchored = runs.reduce((n, r) => n + r.length, 0);
  return {
    words,
    stats: { words: words.length, aligned, interpolated: words.length - aligned, stretches: stretches.length, failed_stretches: failed, anchored },
    reused,
  };
}

/**
 * The transcript the aligned script makes: lines cut at the script's breaks, sentence ends, speaker
 * changes and long pauses; speakers from `labels` (the script's names) or, where the script names none,
 * from the recognised line each word overlaps most.
 */
export function scriptTranscript(base: Transcript, script: ParsedScript, timed: readonly TimedScriptWord[], labels: ReadonlyMap<string, string> | null): Transcript {
  const spans = base.segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker })).sort((a, b) => a.start - b.start);
  const diarized = labels ? null : speakersByOverlap(timed, spans);
  const fallback = base.speakers[0] ?? 'S1';
  const words = timed.map((w, k) => {
    const source = script.words[k]!;
    const speaker = labels ? labels.get(source.speaker!)! : (diarized![k] ?? fallback);
    return { ...source, ...w, text: source.text, speaker };
  });
  const starts = lineStarts(words);
  const segments: TranscriptSegment[] = starts.map((from, id) => {
    const line = words.slice(from, starts[id + 1] ?? words.length);
    return {
      id,
      speaker: line[0]!.speaker,
      start: line[0]!.start,
      end: line.at(-1)!.end,
      text: line.map((w) => w.text).join(' '),
      words: line.map((w) => ({ word: w.text, start: w.start, end: w.end, confidence: w.confidence, speaker: w.speaker })),
      // The text is the script's, not a guess: speaker adaptation learns from it as from a corrected line.
      avgLogprob: 0,
      corrected: true,
    };
  });
  const speakers = [...new Set(segments.map((s) => s.speaker))];
  const profiles = base.profiles ? Object.fromEntries(Object.entries(base.profiles).filter(([label]) => speakers.includes(label))) : undefined;
  return { ...base, text: segments.map((s) => s.text).join(' '), segments, speakers, ...(profiles ? { profiles } : {}) };
}

/** The script's words and the recogniser's, flattened in time order. */
export function recognizedWords(transcript: Transcript): RecognizedWord[] {
  return transcript.segments
    .flatMap((s) => s.words)
    .filter((w) => w.word.trim())
    .sort((a, b) => a.start - b.start);
}

/** Why a script alignment could not start (the route maps these to statuses). */
export interface ScriptAlignmentDeps {
  sessions: SessionStore;
  speakers: SessionSpeakerEditor;
  editor: TranscriptEditor;
  layout: DataLayout;
  /** The recording's original, as a local file for the decoder. */
  files: StoredFiles;
  tools: MediaTools;
  env?: NodeJS.ProcessEnv;
  /** Decoder processes per alignment. Default 2. */
  workers?: number;
  tempDir?: string;
  /** Says which process aligned what (on a team, the worker that ran the job). */
  log?: (line: string) => void;
  /**
   * Where the stretches aligned so far are kept, so a next attempt of the same alignment aligns only the rest: a
   * team's worker, whose job another worker takes over if it dies. Removing them when the job settles is the job's
   * (script-align-work.ts). Not given on the desktop, which aligns inside the request: nothing would resume it.
   */
  checkpoints?: ScriptAlignCheckpointStore;
}

/**
 * What an alignment's stretches are computed from, as a digest: the recording, the script, the base transcript
 * (its revision and the recognised words the stretches are planned on), the model and the words given
 * pronunciations. Checkpoints under another digest are never reused.
 */
export function alignmentContext(parts: { recording: string; text: string; revision: number; base: Transcript; model: string; pronounced: readonly string[] }): string {
  const { recording, text, revision, base, model, pronounced } = parts;
  const heard = recognizedWords(base).map((w) => [w.word, w.start, w.end]);
  return crypto.createHash('sha256').update(JSON.stringify([recording, text, revision, base.duration, heard, model, pronounced])).digest('hex');
}

/**
 * `POST …/transcript/align`: a script replaces the recognised words, aligned to the recording, as the
 * next transcript revision (op `align_script`). One alignment per recording at a time.
 */
export class ScriptAlignment {
  private readonly running = new Set<string>();

  constructor(private readonly deps: ScriptAlignmentDeps) {}

  async align(sessionId: string, input: { text: string; baseRevision?: number }, signal?: AbortSignal): Promise<{ revision: RevisionRecord; alignment: ScriptAlignmentStats & { speaker_names: Record<string, string> | null } }> {
    const { deps } = this;
    let script: ParsedScript;
    try {
      script = parseScript(input.text);
    } catch (error) {
      throw new InvalidInputError([issue(['text'], (error as Error).message, 'value_error', null)]);
    }
    // 404 / 409 before any work: not transcribed yet, or the editor's revision is stale.
    const base = await deps.editor.editable(sessionId, input.baseRevision);
    const availability = pocketSphinxAvailable(deps.env);
    if (!availability.ok) throw new UnavailableError('Script alignment needs PocketSphinx, which is not installed.');
    if (this.running.has(sessionId)) throw new ConflictError(ALREADY_ALIGNING);
    this.running.add(sessionId);
    const started = Date.now();
    const model = resolvePocketSphinxModel(deps.env);
    const lexicon = await scriptLexicon(
      model.dict,
      script.words.flatMap((w) => w.key.split(' ')),
      { tempDir: deps.tempDir, signal },
    ).catch((error: unknown) => {
      this.running.delete(sessionId);
      throw error;
    });
    const aligner = createPocketSphinxAligner({ env: deps.env, workers: deps.workers ?? 2, dictionary: lexicon.dictionary ?? undefined });
    try {
      const stored = await deps.sessions.storedName(sessionId);
      if (!stored) throw new NotFoundError('The recording no longer exists.');
      const context = alignmentContext({ recording: stored, text: input.text, revision: base.revision, base: base.transcript, model: model.dir, pronounced: lexicon.added });
      const checkpoints = await this.checkpoints(sessionId, context);
      const { words, stats, reused } = await deps.files.withOriginal(sessionId, stored, (file) =>
        alignScriptWords({
          script,
          recognized: recognizedWords(base.transcript),
          duration: base.transcript.duration,
          audio: decodeAudio(file, deps.tools, { signal }),
          aligner,
          signal,
          checkpoints,
        }),
      );
      const alignment = { ...stats, pronounced: lexicon.added.length };
      // Committed only if nothing changed the transcript while the audio was aligned (else 409, nothing stored).
      let names: Record<string, string> | null = null;
      const revision = await deps.editor.replaceTranscript(sessionId, input.baseRevision ?? base.revision, async (current, stores) => {
        // A client that left while the alignment finished: nothing is stored.
        signal?.throwIfAborted();
        const { labels, pins } = script.names.length ? await this.labels(stores, sessionId, current, script, words) : { labels: null, pins: [] };
        names = labels ? Object.fromEntries(labels) : null;
        const transcript = scriptTranscript(current, script, words, labels);
        return {
          transcript,
          pins,
          edit: {
            op: 'align_script',
            words: alignment.words,
            aligned: alignment.aligned,
            interpolated: alignment.interpolated,
            speaker_names: names,
            // Every voice's speech was rewritten: all profiles are measured again.
            touched: transcript.speakers,
          },
        };
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const kept = checkpoints ? `, ${reused} kept from an earlier attempt` : '';
      deps.log?.(`script alignment ${sessionId}: ${alignment.words} words, ${alignment.aligned} aligned; ${stats.stretches - reused} of ${stats.stretches} stretches aligned here${kept}, in ${seconds} s (revision ${revision.revision})`);
      return { revision, alignment: { ...alignment, speaker_names: names } };
    } finally {
      this.running.delete(sessionId);
      lexicon.dispose();
      void aligner.close();
    }
  }

  /** The stretches kept under this context (any other alignment's go), and where new ones are kept; none on the desktop. */
  private async checkpoints(sessionId: string, context: string): Promise<StretchCheckpoints | undefined> {
    const store = this.deps.checkpoints;
    if (!store) return undefined;
    await store.discardOthers(sessionId, context);
    const kept = await store.kept(sessionId, context);
    if (kept.length) this.deps.log?.(`script alignment ${sessionId}: resuming with ${kept.length} aligned stretches kept`);
    return { kept, keep: (stretch) => store.save(sessionId, context, stretch) };
  }

  /**
   * Labels for the script's names: a project speaker's name (any case) takes the label that speaker has in
   * this recording, or a new one tied to it; other names take the voice diarization heard on their lines.
   */
  private async labels(stores: Stores, sessionId: string, transcript: Transcript, script: ParsedScript, words: readonly Span[]) {
    const project = (await stores.sessions.summary(sessionId))!.project;
    const known = await stores.speakers.projectSpeakers(project.id);
    const fixed = new Map<string, string>();
    const pins: Array<{ label: string; speakerId: string }> = [];
    let next = Math.max(0, ...transcript.speakers.map((l) => Number(/^S(\d+)$/.exec(l)?.[1] ?? 0))) + 1;
    for (const name of script.names) {
      if (/^S\d{1,4}$/.test(name)) continue;
      const speaker = known.find((k) => k.name.toLowerCase() === name.toLowerCase());
      if (!speaker) continue;
      const label = (await this.deps.speakers.labelOf(stores, sessionId, speaker.id)) ?? `S${next++}`;
      fixed.set(name, label);
      pins.push({ label, speakerId: speaker.id });
    }
    const spans = transcript.segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker })).sort((a, b) => a.start - b.start);
    const diarized = speakersByOverlap(words, spans);
    const perWord = script.words.map((w, k) => ({ name: w.speaker!, diarized: diarized[k] ?? null, seconds: words[k]!.end - words[k]!.start }));
    const labels = labelsForNames(script.names, perWord, fixed, [...transcript.speakers, ...fixed.values()]);
    return { labels, pins };
  }
}
