import type { JobContext, JobRecord, JobRunner } from '../jobs/job-runner';
import { orderedWrites } from '../jobs/ordered-writes';
import { crashPoints } from '../jobs/crash-points';
import { JobFailure } from '../jobs/job-runner';
import type { TranscriptionEngine } from './engine';
import type { ModelRegistry } from '../models/registry';
import type { SpeakerAdaptation } from '../speakers/speaker-adaptation';
import type { StoredFiles } from '../storage/stored-files';
import type { Database } from '../storage/stores';
import type { TransactionScope } from '../storage/transaction-scope';
import type { Transcript } from '../speech/types';
import { TRANSCRIBE_JOB } from '../recordings/intake';
import { ServiceError } from '../errors';
import { speakerHints } from './speaker-hints';
import { MediaDecodeError } from '../media/decode';
import { storedChunkCheckpoints, storedDiarizationCheckpoints } from './chunk-checkpoints';
import type { SqlChunkCheckpointStore } from '../storage/chunk-checkpoint-store';
import type { SpeakerTurn } from '../speech/types';
import { renamedTurns } from './diarized-segments';

export interface TranscribeJobPayload {
  model?: string;
  prompt?: string;
  min_speakers?: number;
  max_speakers?: number;
  /** An OpenAI-style request someone waits for, following the job (transcribe.ts). */
  request?: RequestOptions;
}

/** What `POST /v1/audio/transcriptions` asks beyond an upload's options. */
export interface RequestOptions {
  temperature: number;
  vad?: { threshold?: number; minSilenceSeconds?: number; speechPadSeconds?: number };
  known_speaker_names: string[];
  /** Data URLs of audio, one per known speaker name. */
  known_speaker_references: string[];
}

/**
 * What a requested transcription's job tells the request following it: the recognised lines' text so far, in
 * order (a stream's deltas), then the diarizer's turns under the known speakers' names (diarized_json's extents).
 */
export interface RequestResult extends Record<string, unknown> {
  texts: string[];
  turns?: SpeakerTurn[];
}

/** Text published at most this often while recognition runs (the final result has all of it). */
const PUBLISH_INTERVAL_MS = 200;

/** What the transcription job works with. */
export interface TranscribeJobDeps {
  database: Database;
  sessions: Database['sessions'];
  projects: Database['projects'];
  files: StoredFiles;
  models: ModelRegistry;
  transcription: TranscriptionEngine;
  adaptation: SpeakerAdaptation;
  /** The recognized chunks and diarization stages a resumed job reuses. */
  checkpoints: SqlChunkCheckpointStore;
  /** Stores a finished transcript and queues its analysis, in one transaction. */
  completeTranscript(sessionId: string, transcript: Transcript): Promise<void>;
  log(line: string): void;
}

/** A transcription waiting (for the storage, for a worker) says so in its recording's own status, where readers look. */
export function showTranscriptionWaiting(sessions: Database['sessions']): (job: JobRecord, stage: string) => Promise<void> {
  return (job, stage) => sessions.followJob(job.session_id, 'running', Math.min(job.progress, 0.99), stage);
}

/**
 * The background job behind uploads: session status follows the job (queued → running with progress →
 * complete or failed with a reason). A job interrupted by a stop or crash is queued again and resumes,
 * recognizing only the chunks it had not checkpointed and reusing diarization's speech spans and result
 * when they were kept.
 */
export function registerTranscribeJob(ctx: TranscribeJobDeps, runner: JobRunner, afterTranscript: (sessionId: string) => Promise<void>): void {
  const { checkpoints } = ctx;
  // A file that cannot be decoded (damaged, or ffmpeg stalled on it) is the user's to know about, not an internal error.
  const transcribeOrExplain = async (request: Parameters<TranscriptionEngine['transcribe']>[0]) => {
    try {
      return await ctx.transcription.transcribe(request);
    } catch (error) {
      if (error instanceof MediaDecodeError && !request.signal?.aborted) throw new JobFailure(error.message);
      throw error;
    }
  };

  const registered = {
    keptWork: (job: JobRecord) => checkpoints.keptWork(job.session_id),
    showWaiting: showTranscriptionWaiting(ctx.sessions),
    // A recording whose transcript is stored stays complete whatever happens to the job after (followJob).
    settle: async (job: JobRecord, scope: TransactionScope) => {
      const sessions = ctx.sessions.within(scope);
      if (job.status === 'failed') await sessions.followJob(job.session_id, 'failed', job.progress, 'failed', job.error);
      if (job.status === 'queued') await sessions.followJob(job.session_id, 'queued', 0, 'queued');
    },
  };
  runner.register(TRANSCRIBE_JOB, registered, async ({ job, signal, progress, publish }: JobContext) => {
    const sessionId = job.session_id;
    const stored = await ctx.sessions.storedName(sessionId);
    const summary = await ctx.sessions.summary(sessionId);
    if (!stored || !summary) throw new JobFailure('The recording no longer exists.');
    const payload = job.payload as TranscribeJobPayload;
    // Only a queued or failed recording gets a transcription job, so a complete one means this job stored its
    // transcript before its process died: that transcript (and any edit made to it since) stays, and only the
    // steps after the store are done.
    if (summary.status === 'complete') return afterStore(sessionId, payload.request ? (job.result as RequestResult | null) : null, !!payload.request);
    // A team's model downloaded through any node is known here once read (this worker fetches its file before use).
    await ctx.models.refresh();
    let engine;
    try {
      engine = ctx.models.resolveRecognizer(payload.model, summary.language);
    } catch (error) {
      throw new JobFailure(error instanceof ServiceError ? error.message : 'No speech recognizer is available.');
    }
    await ctx.sessions.setProgress(sessionId, 'running', 0, 'starting');
    // Chunks recognized under other words (engine, language, prompt, the project's vocabulary) are not reused.
    const vocabulary = await ctx.projects.vocabulary(summary.project.id);
    const request = payload.request;
    const checkpointContext = JSON.stringify([engine.model.id, summary.language, payload.prompt ?? null, vocabulary, ...(request ? [request.temperature, request.vad ?? null] : [])]);
    const hints = speakerHints(payload);
    const resumed = await checkpoints.count(sessionId);
    const stages = await checkpoints.stages(sessionId);
    if (resumed > 0 || stages.length > 0) {
      ctx.log(`transcription ${sessionId}: resuming with ${resumed} recognized chunks kept${stages.length ? `, ${stages.join(' and ')} kept` : ''}`);
    }
    // The project's speakers with a transform (from earlier recordings, estimated on whichever node) decode the
    // chunks that sound like them; this node's copies of the files are held until the transcription ends.
    const profiles = await ctx.database.speakers.projectSpeakersWithProfiles(summary.project.id);
    const adapted = await ctx.adaptation.decoding(summary.project.id);
    const adaptedSpeakers = profiles.flatMap((s) => {
      const files = adapted.speakers.get(s.id);
      return files ? [{ id: s.id, profile: s.profile, ...files }] : [];
    });
    const saved = orderedWrites((error) => ctx.log(`transcription ${sessionId}: progress not saved: ${(error as Error).message}`));
    // A request's waiter streams the lines' text: each recognised line (a resumed run's kept ones again, in order).
    const texts: string[] = [];
    let turns: SpeakerTurn[] = [];
    let published = 0;
    const streamed = request
      ? {
          temperature: request.temperature,
          vad: request.vad,
          onSegment: (segment: { text: string }) => {
            if (!segment.text) return;
            texts.push(segment.text);
            if (Date.now() - published < PUBLISH_INTERVAL_MS) return;
            published = Date.now();
            publish({ texts: [...texts] } satisfies RequestResult);
          },
          onTurns: (found: SpeakerTurn[]) => {
            turns = found;
          },
        }
      : {};
    const original = await ctx.files.localOriginal(sessionId, stored).catch((error: unknown) => {
      adapted.release();
      throw error;
    });
    const transcript = await transcribeOrExplain({
      file: original.path,
      engine,
      adaptedSpeakers,
      language: summary.language,
      prompt: payload.prompt,
      vocabulary,
      ...hints,
      ...streamed,
      signal,
      checkpoints: storedChunkCheckpoints(checkpoints, sessionId, checkpointContext),
      // Diarization hears the audio, not the words: only the speaker-count hints set its context.
      diarizationCheckpoints: storedDiarizationCheckpoints(checkpoints, sessionId, JSON.stringify([hints.minSpeakers ?? null, hints.maxSpeakers ?? null])),
      onProgress: (fraction, stage) => {
        progress(fraction, stage);
        saved.push(() => ctx.sessions.setProgress(sessionId, 'running', Math.min(fraction, 0.99), stage));
      },
    }).finally(async () => {
      adapted.release();
      await saved.flush();
      await original.release();
    });
    if (signal.aborted) throw signal.reason;
    const named = request ? await ctx.transcription.applyKnownSpeakers(transcript, request.known_speaker_names, request.known_speaker_references, signal) : transcript;
    await ctx.completeTranscript(sessionId, named);
    crashPoints.hit('transcribe.after-store');
    return afterStore(sessionId, request ? { texts, turns: renamedTurns(turns, transcript, named) } : null, !!request);
  });

  /** What follows the transcript's store; each step may run again (a job delivered again after any of them). */
  async function afterStore(sessionId: string, result: RequestResult | null, requested: boolean): Promise<RequestResult | undefined> {
    await checkpoints.discard(sessionId);
    crashPoints.hit('transcribe.after-discard');
    await afterTranscript(sessionId);
    if (!requested) return undefined;
    // Delivered again after the store: the lines' text is the stored transcript's (the diarizer's turns went with the process).
    if (!result || result.turns === undefined) return { texts: ((await ctx.sessions.transcript(sessionId))?.segments ?? []).map((s) => s.text), turns: result?.turns ?? [] };
    return result;
  }
}
