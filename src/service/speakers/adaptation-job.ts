import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import type { SessionStore } from '../storage/session-store';
import type { SpeakerStore } from '../storage/speaker-store';
import type { MediaTools } from '../media/tools';
import { decodeAudioToArray } from '../media/decode';
import { levelledRecording } from '../speech/pipeline/levelled-blocks';
import { denoisedIfNoisy, speechWithin } from '../speech/enhancement/noisy-speech';
import type { Denoiser, Dereverberator } from '../speech/enhancement/types';
import type { JobContext, JobQueue, JobRunner } from '../jobs/job-runner';
import type { JobStore } from '../storage/job-store';
import { SWEEP_GRACE_MS } from '../recordings/intake';
import { float32ToInt16Le } from '../speech/recognition/pocketsphinx/pcm';
import { SAMPLE_RATE, type Span, type Transcript } from '../speech/types';
import { alignableWords, MIN_RECORDING_SECONDS, wordPieces, type AdaptationChunk, type SpeakerAdaptation } from './speaker-adaptation';

export const SPEAKER_ADAPTATION_JOB = 'speaker-adaptation';

/** Audio kept either side of a line, so the aligner sees its first and last phones whole. */
const PAD_SECONDS = 0.05;

/** Sample range of a line's audio, padded so the aligner sees its first and last phones whole. */
function lineSamples(segment: Span, length: number): { from: number; to: number } {
  const from = Math.max(0, Math.floor((segment.start - PAD_SECONDS) * SAMPLE_RATE));
  return { from, to: Math.min(length, Math.ceil((segment.end + PAD_SECONDS) * SAMPLE_RATE)) };
}

/**
 * One speaker's lines as Baum-Welch chunks: the line's audio and its words as the dictionary spells them.
 * A line the editor corrected (or aligned a script to) carries the editor's words and says so (`corrected`):
 * it is supervision. A line with a word the dictionary lacks (a name without a pronunciation) is left out whole.
 */
export function speakerChunks(transcript: Transcript, label: string, pcm: Float32Array, dictionary: ReadonlySet<string>): AdaptationChunk[] {
  const chunks: AdaptationChunk[] = [];
  for (const segment of transcript.segments) {
    if (segment.speaker !== label || segment.words.length === 0) continue;
    const words = alignableWords(segment.words, dictionary);
    if (!words) continue;
    const { from, to } = lineSamples(segment, pcm.length);
    if (to - from < SAMPLE_RATE / 4) continue;
    chunks.push({
      id: `s${segment.id}`,
      pcm: float32ToInt16Le(pcm.subarray(from, to)),
      hypothesis: words.join(' '),
      ...(segment.corrected ? { corrected: true } : {}),
    });
  }
  return chunks;
}

/**
 * Words of the given speakers' lines that the dictionary lacks, as the dictionary would spell them (letters and
 * apostrophes only): the names an editor typed, to be pronounced so their lines can be aligned.
 */
export function unknownLineWords(transcript: Transcript, labels: ReadonlySet<string>, dictionary: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const segment of transcript.segments) {
    if (!labels.has(segment.speaker)) continue;
    for (const w of segment.words) {
      for (const piece of wordPieces(w.word, dictionary)) {
        if (!dictionary.has(piece) && /^[a-z][a-z']*$/.test(piece) && piece.length <= 40) out.add(piece);
      }
    }
  }
  return [...out];
}

/**
 * Each line's audio replaced in place by what `heard` makes of it (null: left as it is), so Baum-Welch counts
 * what the decoders heard. `speech` is the line's words, in the line's clock. Returns how many lines changed.
 */
async function rewriteLines(
  transcript: Transcript,
  pcm: Float32Array,
  heard: (audio: Float32Array, speech: Span[]) => Promise<Float32Array | null>,
  signal?: AbortSignal,
): Promise<number> {
  let changed = 0;
  for (const segment of transcript.segments) {
    signal?.throwIfAborted();
    if (segment.words.length === 0) continue;
    const { from, to } = lineSamples(segment, pcm.length);
    if (to <= from) continue;
    const start = from / SAMPLE_RATE;
    const words = segment.words.map((w) => ({ start: w.start, end: w.end }));
    const out = await heard(pcm.subarray(from, to), speechWithin(words, { start, end: to / SAMPLE_RATE }));
    if (!out) continue;
    pcm.set(out, from);
    changed++;
  }
  return changed;
}

/** The recording's noisy lines denoised in place, as transcription denoised its noisy chunks (speech under NOISY_BELOW_SNR_DB). */
export function denoiseNoisyLines(transcript: Transcript, pcm: Float32Array, denoiser: Denoiser, signal?: AbortSignal): Promise<number> {
  return rewriteLines(
    transcript,
    pcm,
    async (audio, speech) => {
      const out = await denoisedIfNoisy(denoiser, audio, speech);
      return out.denoised ? out.pcm : null;
    },
    signal,
  );
}

/** The recording's reverberant lines dereverberated in place, as transcription dereverberated its chunks. */
export function dereverberateLines(transcript: Transcript, pcm: Float32Array, dereverberator: Dereverberator, signal?: AbortSignal): Promise<number> {
  return rewriteLines(
    transcript,
    pcm,
    async (audio) => {
      const out = await dereverberator.dereverberate(audio);
      return out.applied ? out.pcm : null;
    },
    signal,
  );
}

export interface SpeakerAdaptationDeps {
  sessions: SessionStore;
  speakers: SpeakerStore;
  layout: DataLayout;
  /** The recording's original, as a local file for the decoder. */
  files: StoredFiles;
  tools: MediaTools;
  adaptation: SpeakerAdaptation;
  /** Transcription's denoiser, when it runs: noisy lines are denoised for the statistics as they were for decoding. */
  denoiser?: Denoiser;
  /** Transcription's dereverberator, when it runs: reverberant lines are dereverberated first, as chunks were. */
  dereverberator?: Dereverberator;
  log: (line: string) => void;
}

/**
 * After a recording's speakers are mapped to project speakers, or after its transcript was corrected: queued when
 * adaptation can run here and no such job already waits (a waiting one reads the newest transcript when it starts).
 */
export async function queueSpeakerAdaptation(adaptation: SpeakerAdaptation, jobs: JobQueue, sessionId: string, within?: JobStore): Promise<void> {
  if (!adaptation.estimating || (await (within ?? jobs).waiting(SPEAKER_ADAPTATION_JOB, sessionId))) return;
  await jobs.enqueue(SPEAKER_ADAPTATION_JOB, sessionId, {}, within);
}

/**
 * Adds the recording's speech of each project speaker to that speaker's adaptation and solves its
 * transform. A tool failure or too little speech leaves that speaker as it was (logged): adaptation is an
 * optimisation, and its job never fails the recording.
 */
export function registerSpeakerAdaptationJob(deps: SpeakerAdaptationDeps, runner: JobRunner): void {
  runner.register(SPEAKER_ADAPTATION_JOB, async ({ job, signal }: JobContext) => {
    const sessionId = job.session_id;
    const summary = await deps.sessions.summary(sessionId);
    const stored = await deps.sessions.storedName(sessionId);
    const transcript = await deps.sessions.transcript(sessionId);
    if (!summary || !stored || !transcript) return;
    const projectId = summary.project.id;
    const mapped = await deps.speakers.map(sessionId);
    // Speakers merged or deleted since lose what they kept; a live one's unnamed objects only after the grace (another
    // worker may be estimating it now).
    await deps.adaptation.sweep(projectId, async () => new Set((await deps.speakers.projectSpeakers(projectId)).map((s) => s.id)), SWEEP_GRACE_MS);
    if (mapped.length === 0) return;
    // Levelled as transcription levels it (in place: no second copy of the recording): the statistics must come
    // from the audio the decoders hear.
    const decoded = await deps.files.withOriginal(sessionId, stored, (file) => decodeAudioToArray(file, deps.tools, { signal }));
    const pcm = await levelledRecording(decoded, decoded);
    if (deps.dereverberator) {
      const lines = await dereverberateLines(transcript, pcm, deps.dereverberator, signal);
      if (lines > 0) deps.log(`adaptation: ${lines} reverberant line(s) of recording ${sessionId} dereverberated, as for decoding`);
    }
    if (deps.denoiser) {
      try {
        const lines = await denoiseNoisyLines(transcript, pcm, deps.denoiser, signal);
        if (lines > 0) deps.log(`adaptation: ${lines} noisy line(s) of recording ${sessionId} denoised, as for decoding`);
      } catch (error) {
        signal.throwIfAborted();
        deps.log(`adaptation: the denoiser failed (${(error as Error).message}); the rest of recording ${sessionId} is counted as it is`);
      }
    }
    // Names the editor typed (or a vocabulary decoder wrote) are pronounced as the vocabulary feature does, so
    // their lines are aligned rather than left out.
    const base = deps.adaptation.words();
    const lexicon = await deps.adaptation.pronounce(unknownLineWords(transcript, new Set(mapped.map((m) => m.label)), base), signal);
    try {
      const dictionary = lexicon.added.length ? new Set([...base, ...lexicon.added]) : base;
      for (const { label, speaker_id } of mapped) {
        signal.throwIfAborted();
        const chunks = speakerChunks(transcript, label, pcm, dictionary);
        const seconds = chunks.reduce((a, c) => a + c.pcm.length / 2 / SAMPLE_RATE, 0);
        if (seconds < MIN_RECORDING_SECONDS) {
          // Nothing usable of this speaker here any more (lines moved away, or corrected into words without
          // phones): what an earlier transcript of the recording taught goes, and the transform is solved without it.
          if (!(await deps.adaptation.hasRecording(projectId, speaker_id, sessionId))) continue;
          chunks.length = 0;
        }
        try {
          const result = await deps.adaptation.addRecording(projectId, speaker_id, sessionId, chunks, { dictionary: lexicon.dictionary });
          if (!result) deps.log(`adaptation: speaker ${speaker_id} has too little speech for a transform yet`);
        } catch (error) {
          deps.log(`adaptation: speaker ${speaker_id} of recording ${sessionId} not adapted: ${(error as Error).message}`);
        }
      }
    } finally {
      lexicon.dispose();
    }
  });
}
