import type { ServiceContext } from '../context';
import { NotFoundError, ProcessingFailedError, UnsupportedMediaError } from '../errors';
import { intakeRecording, TRANSCRIBE_JOB } from '../recordings/intake';
import { NotMediaError, probeMedia } from '../media/probe';
import { assertEngineLanguage, type ResolvedEngine } from '../models/registry';
import type { UploadedFile } from '../storage/uploaded-file';
import type { SpeakerTurn, Transcript } from '../speech/types';
import type { SpeakerHints } from './speaker-hints';
import { renamedTurns } from './diarized-segments';
import type { RequestResult, TranscribeJobPayload } from './transcribe-job';
import type { JobRecord } from '../jobs/job-record';

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
 * Transcribes an upload while the caller waits (OpenAI's `POST /v1/audio/transcriptions`): the upload becomes a
 * session whose transcription job, queued with the request's options, is followed until it settles, handing on
 * each recognised line's text as the job publishes it (the desktop's in-process worker starts it at once, a
 * team's worker when the queue delivers it). A call is kept unless it asks otherwise (`store: false`), so its
 * audio and analysis can be read later; a cancelled or failed call leaves the session failed with the reason a
 * user may read.
 */
export async function transcribe(ctx: ServiceContext, input: ImmediateTranscription, hooks: ImmediateHooks): Promise<ImmediateResult> {
  const engine = (await ctx.models.refresh()).resolveRecognizer(input.model);
  const language = ctx.languages.resolve(input.language, ['body', 'language']);
  assertEngineLanguage(engine, language, ['body', 'language']);
  // Nothing kept means no session, so no job record: a process that holds the recognizers does it in the request.
  if (input.store === false && ctx.transcription) return transcribeUnkept(ctx, ctx.transcription, input, hooks, engine, language);
  let session;
  try {
    session = await intakeRecording(ctx, input.file, { projectKey: input.projectKey ?? DEFAULT_PROJECT_KEY, language, jobPayload: requestPayload(input), warmPeaks: false });
  } catch (error) {
    if (error instanceof NotMediaError) throw new UnsupportedMediaError(error.message, { code: 'unsupported_file', param: 'file' });
    throw error;
  }
  const id = session.id;
  if (input.store === false) {
    // A team's API node: the worker needs a session to read the upload from; it goes (with the jobs queued after it) once answered.
    try {
      return { sessionId: null, fileName: session.file_name, ...(await followTranscription(ctx, id, { ...hooks, onStarted: () => hooks.onStarted?.(null) })) };
    } finally {
      await forget(ctx, id);
    }
  }
  return { sessionId: id, fileName: session.file_name, ...(await followTranscription(ctx, id, hooks)) };
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

/** Removes a session a `store: false` call needed on its way (an API node's), with its queued jobs and files. */
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

/**
 * Follows the session's transcription job, handing on each recognised line's text as it publishes it, and returns
 * the stored transcript with the diarizer's turns once the job completes. A client that leaves cancels the job
 * wherever it runs and fails the session saying so.
 */
async function followTranscription(ctx: ServiceContext, sessionId: string, hooks: ImmediateHooks): Promise<{ transcript: Transcript; turns: SpeakerTurn[] }> {
  const queued = await ctx.database.jobs.latest(TRANSCRIBE_JOB, sessionId);
  hooks.onStarted?.(sessionId);
  let sent = 0;
  const handOn = (job: JobRecord) => {
    const texts = (job.result as RequestResult | null)?.texts ?? [];
    for (; sent < texts.length; sent++) hooks.onText?.(texts[sent]!);
  };
  let job: JobRecord | null;
  try {
    job = await ctx.jobs.follow(queued!.id, hooks.signal, handOn);
  } catch (error) {
    if (hooks.signal.aborted) {
      await ctx.jobs.cancelSession(sessionId);
      await ctx.sessions.setProgress(sessionId, 'failed', 0, 'failed', 'The client disconnected before transcription finished.');
    }
    throw error;
  }
  if (job?.status === 'complete') {
    const transcript = await ctx.sessions.transcript(sessionId);
    if (!transcript) throw new NotFoundError('The recording was deleted before its transcription finished.');
    return { transcript, turns: (job.result as RequestResult | null)?.turns ?? [] };
  }
  if (job?.status === 'failed') throw new ProcessingFailedError(job.error ?? 'Transcription failed.', { code: 'transcription_failed' });
  // Cancelled, or its record gone: the recording was deleted.
  throw new NotFoundError('The recording was deleted before its transcription finished.');
}
