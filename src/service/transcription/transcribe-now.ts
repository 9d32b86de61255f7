import type { ServiceContext } from '../context';
import { orderedWrites } from '../jobs/ordered-writes';
import { ServiceError, UnsupportedMediaError } from '../errors';
import { intakeRecording, TRANSCRIBE_JOB } from '../recordings/intake';
import { NotMediaError, probeMedia } from '../media/probe';
import { assertEngineLanguage, type ResolvedEngine } from '../models/registry';
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
  /**
   * False: nothing is kept (no session, project, analysis or adaptation; the upload goes when the request
   * ends). Default true.
   */
  store?: boolean;
}

export interface ImmediateHooks {
  signal: AbortSignal;
  /** The upload is stored as a session (null when nothing is kept) and recognition starts (a streamed answer may begin). */
  onStarted?(sessionId: string | null): void;
  /** A recognized line's text, in order, as soon as it is known. */
  onText?(text: string): void;
}

export interface ImmediateResult {
  /** Null when the call asked that nothing be kept. */
  sessionId: string | null;
  fileName: string;
  transcript: Transcript;
  turns: SpeakerTurn[];
}

/**
 * Transcribes an upload while the caller waits (OpenAI's `POST /v1/audio/transcriptions`). A call is kept
 * as a session unless it asks otherwise (`store: false`), so its audio and analysis can be read later; a
 * cancelled or failed call leaves the session failed with the reason a user may read.
 */
export async function transcribeNow(ctx: ServiceContext, input: ImmediateTranscription, hooks: ImmediateHooks): Promise<ImmediateResult> {
  const engine = (await ctx.models.refresh()).resolveRecognizer(input.model);
  const language = ctx.languages.resolve(input.language, ['body', 'language']);
  assertEngineLanguage(engine, language, ['body', 'language']);
  // A team's API node recognises nothing itself (it has no recognizers): the request becomes a transcription job a worker runs.
  const recognizers = ctx.transcription;
  const byWorker = recognizers === null;
  if (input.store === false && !byWorker) return transcribeUnkept(ctx, recognizers, input, hooks, engine, language);
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
  if (byWorker && input.store === false) {
    // The worker needs a session to read the upload from; it goes (with the jobs queued after it) once answered.
    try {
      return { sessionId: null, fileName: session.file_name, ...(await followWorker(ctx, id, { ...hooks, onStarted: () => hooks.onStarted?.(null) })) };
    } finally {
      await forget(ctx, id);
    }
  }
  if (byWorker) return { sessionId: id, fileName: session.file_name, ...(await followWorker(ctx, id, hooks)) };
  const progress = orderedWrites((error) => ctx.log(`transcription ${id}: progress not saved: ${(error as Error).message}`));
  try {
    await ctx.sessions.setProgress(id, 'running', 0, 'starting');
    hooks.onStarted?.(id);
    let turns: SpeakerTurn[] = [];
    const original = await ctx.files.localOriginal(id, (await ctx.sessions.storedName(id))!);
    const transcript = await recognizers.transcribe({
      file: original.path,
      duration: session.duration,
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

/**
 * `store: false` on a node that recognises: the upload is transcribed where it was spooled, and nothing is
 * written (no project is created, no session, analysis or speaker enrolment; the project's vocabulary is still
 * used when it exists). The upload is probed as intake would, so a file that is not media fails the same way.
 */
async function transcribeUnkept(
  ctx: ServiceContext,
  recognizers: NonNullable<ServiceContext['transcription']>,
  input: ImmediateTranscription,
  hooks: ImmediateHooks,
  engine: ResolvedEngine,
  language: string,
): Promise<ImmediateResult> {
  let probe;
  try {
    if (input.file.size === 0) throw new NotMediaError('The file is empty.');
    probe = await probeMedia(ctx.tools, input.file.path, hooks.signal);
  } catch (error) {
    if (error instanceof NotMediaError) throw new UnsupportedMediaError(error.message, { code: 'unsupported_file', param: 'file' });
    throw error;
  }
  const project = await ctx.projects.find(input.projectKey ?? DEFAULT_PROJECT_KEY);
  hooks.onStarted?.(null);
  let turns: SpeakerTurn[] = [];
  const transcript = await recognizers.transcribe({
    file: input.file.path,
    duration: probe.hasAudio ? probe.duration : undefined,
    engine,
    language,
    prompt: input.prompt,
    vocabulary: project ? await ctx.projects.vocabulary(project.id) : [],
    ...input.speakers,
    temperature: input.temperature,
    vad: input.vad,
    signal: hooks.signal,
    onSegment: (segment) => {
      if (segment.text) hooks.onText?.(segment.text);
    },
    onTurns: (found) => {
      turns = found;
    },
  });
  const named = await recognizers.applyKnownSpeakers(transcript, input.knownSpeakerNames, input.knownSpeakerReferences, hooks.signal);
  return { sessionId: null, fileName: input.file.fileName, transcript: named, turns: renamedTurns(turns, transcript, named) };
}

/** Removes a session a `store: false` call needed on its way (a team's), with its queued jobs and files. */
async function forget(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.jobs.cancelSession(id);
  await ctx.sessions.delete(id);
  ctx.documents.forget(id);
  await ctx.files.deleteRecording(id);
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
