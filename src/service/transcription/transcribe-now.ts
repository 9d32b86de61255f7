import type { ServiceContext } from '../context';
import { orderedWrites } from '../jobs/ordered-writes';
import { ServiceError, UnsupportedMediaError } from '../errors';
import { intakeRecording, TRANSCRIBE_JOB } from '../recordings/intake';
import { NotMediaError } from '../media/probe';
import { assertEngineLanguage } from '../models/registry';
import type { UploadedFile } from '../storage/uploaded-file';
import type { SpeakerTurn, Transcript } from '../speech/types';
import type { SpeakerHints } from './speaker-hints';
import { renamedTurns } from './diarized-segments';
import type { TranscribeJobPayload } from './transcribe-job';
import { awaitWorkerTranscription } from './transcribe-by-worker';

export const DEFAULT_PROJECT_KEY = 'default';

export interface ImmediateTranscription {
  file: UploadedFile;
  projectKey?: string;
  model: string;
  language?: string;
  prompt?: string;
  temperature: number;
  speakers: SpeakerHints;
  /** Voice-activity knobs (OpenAI's server_vad chunking strategy), or the detector's defaults. */
  vad?: { threshold?: number; minSilenceSeconds?: number; speechPadSeconds?: number };
  knownSpeakerNames: string[];
  /** Data URLs of audio, one per known speaker name. */
  knownSpeakerReferences: string[];
}

export interface ImmediateHooks {
  signal: AbortSignal;
  /** The upload is stored as a session and recognition starts (a streamed answer may begin). */
  onStarted?(sessionId: string): void;
  /** A recognized line's text, in order, as soon as it is known. */
  onText?(text: string): void;
}

export interface ImmediateResult {
  sessionId: string;
  fileName: string;
  transcript: Transcript;
  turns: SpeakerTurn[];
}

/**
 * Transcribes an upload while the caller waits (OpenAI's `POST /v1/audio/transcriptions`). Every call is
 * kept as a session, so its audio and analysis can be read later; a cancelled or failed call leaves the
 * session failed with the reason a user may read.
 */
export async function transcribeNow(ctx: ServiceContext, input: ImmediateTranscription, hooks: ImmediateHooks): Promise<ImmediateResult> {
  const engine = (await ctx.models.refresh()).resolveRecognizer(input.model);
  const language = ctx.languages.resolve(input.language, ['body', 'language']);
  assertEngineLanguage(engine, language, ['body', 'language']);
  // A team's API node recognises nothing itself (it has no recognizers): the request becomes a transcription job a worker runs.
  const recognizers = ctx.transcription;
  const byWorker = recognizers === null;
  let session;
  try {
    session = await intakeRecording(ctx, input.file, {
      projectKey: input.projectKey ?? DEFAULT_PROJECT_KEY,
      language,
      queueJob: byWorker,
      ...(byWorker ? { jobPayload: requestPayload(input) } : {}),
    });
  } catch (error) {
    if (error instanceof NotMediaError) throw new UnsupportedMediaError(error.message, { code: 'unsupported_file', param: 'file' });
    throw error;
  }
  const id = session.id;
  if (byWorker) return { sessionId: id, fileName: session.file_name, ...(await followWorker(ctx, id, hooks)) };
  const progress = orderedWrites((error) => ctx.log(`transcription ${id}: progress not saved: ${(error as Error).message}`));
  try {
    await ctx.sessions.setProgress(id, 'running', 0, 'starting');
    hooks.onStarted?.(id);
    let turns: SpeakerTurn[] = [];
    const original = await ctx.files.localOriginal(id, (await ctx.sessions.storedName(id))!);
    const transcript = await recognizers.transcribe({
      file: original.path,
      engine,
      language,
      prompt: input.prompt,
      vocabulary: await ctx.projects.vocabulary(session.project.id),
      ...input.speakers,
      temperature: input.temperature,
      vad: input.vad,
      signal: hooks.signal,
      onProgress: (fraction, stage) => progress.push(() => ctx.sessions.setProgress(id, 'running', Math.min(fraction, 0.99), stage)),
      onSegment: (segment) => {
        if (segment.text) hooks.onText?.(segment.text);
      },
      onTurns: (found) => {
        turns = found;
      },
    }).finally(() => original.release());
    const named = await recognizers.applyKnownSpeakers(transcript, input.knownSpeakerNames, input.knownSpeakerReferences, hooks.signal);
    turns = renamedTurns(turns, transcript, named);
    await progress.flush();
    await ctx.completeTranscript(id, named);
    await ctx.afterTranscript(id);
    return { sessionId: id, fileName: session.file_name, transcript: named, turns };
  } catch (error) {
    const reason = hooks.signal.aborted ? 'The client disconnected before transcription finished.' : error instanceof ServiceError ? error.message : 'Transcription failed.';
    await progress.flush();
    await ctx.sessions.setProgress(id, 'failed', 0, 'failed', reason);
    throw error;
  }
}

/** The request as the transcription job's payload (a worker reads it; transcribe-job.ts). */
function requestPayload(input: ImmediateTranscription): Record<string, unknown> {
  return {
    model: input.model,
    prompt: input.prompt,
    min_speakers: input.speakers.minSpeakers,
    max_speakers: input.speakers.maxSpeakers,
    request: {
      temperature: input.temperature,
      vad: input.vad,
      known_speaker_names: input.knownSpeakerNames,
      known_speaker_references: input.knownSpeakerReferences,
    },
  } satisfies TranscribeJobPayload;
}

/** Waits for the worker's job, streaming its text; a client that leaves cancels it and fails the session saying so. */
async function followWorker(ctx: ServiceContext, id: string, hooks: ImmediateHooks): Promise<{ transcript: Transcript; turns: SpeakerTurn[] }> {
  const job = await ctx.database.jobs.latest(TRANSCRIBE_JOB, id);
  hooks.onStarted?.(id);
  try {
    return await awaitWorkerTranscription({ jobs: ctx.jobs, transcript: (sessionId) => ctx.sessions.transcript(sessionId) }, id, job!.id, hooks);
  } catch (error) {
    if (hooks.signal.aborted) await ctx.sessions.setProgress(id, 'failed', 0, 'failed', 'The client disconnected before transcription finished.');
    throw error;
  }
}
