import { JobFailure, type JobRecord, type JobRunner } from '../jobs/job-runner';
import { crashPoints } from '../jobs/crash-points';
import type { TransactionScope } from '../storage/transaction-scope';
import type { ModelRegistry } from '../models/registry';
import type { SessionStore } from '../storage/session-store';
import type { TranscriptionEngine } from '../transcription/engine';
import { ServiceError } from '../errors';
import type { DubStore } from '../storage/dub-store';
import { linesFromSegments } from './line-rules';
import { dubKeys, type DubFiles } from './dub-files';
import { DUB_LINE_TEXT_MAX } from '../../shared/schemas';
import fs from 'node:fs';
import type { MediaTools } from '../media/tools';
import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import { frameBytes, readWavLayout } from '../media/wav';
import { decodeToWav } from './dub-audio';
import { computePeaks } from '../media/peaks';
import type { DubRecord } from '../storage/dub-store';
import type { SpeakerPitch } from '../../shared/schemas';
import { measureSpeakerPitch } from './speaker-pitch';

export const DUB_PREPARE_JOB = 'dub-prepare';
/**
 * A dub from the recording: converting its audio (and drawing its waveform) takes seconds, so it is a quick
 * kind with a slot of its own instead of waiting behind the recording's speaker adaptation and analysis, which
 * follow its transcript. Older versions queued it as a `dub-prepare` job with `source: "recording"`, which
 * still runs the same way.
 */
export const DUB_CONVERT_JOB = 'dub-convert';
/** The kinds of job that make a dub ready. */
export const DUB_READYING_JOBS = [DUB_PREPARE_JOB, DUB_CONVERT_JOB] as const;

export interface PrepareDeps {
  store: DubStore;
  files: DubFiles;
  sessions: SessionStore;
  models: ModelRegistry;
  transcription: TranscriptionEngine;
  tools: MediaTools;
  layout: DataLayout;
  /** The recording's original, as a local file for the decoder. */
  stored: StoredFiles;
  /** Where a progress write that failed is reported (progress is advisory: the job goes on). */
  log?: (line: string) => void;
}

/**
 * Progress writes reported from synchronous callbacks (the decoder's, a timer's), run one after another in
 * the order reported; `idle` waits for the last, so a late progress write never lands after the result.
 */
function progressWrites(log: (line: string) => void) {
  let last: Promise<void> = Promise.resolve();
  return {
    write(write: () => Promise<unknown>): void {
      last = last.then(write).then(
        () => undefined,
        (error: unknown) => log(`dub progress not recorded: ${(error as Error).message}`),
      );
    },
    idle: () => last,
  };
}

/** How often the conversion's progress is read (the size of the WAV written so far). */
const CONVERT_POLL_MS = 200;

/**
 * A dub from the recording: the original audio converted to the dub's WAV as revision 1. Progress is the
 * share of the expected samples written. The lines were set when the dub was made; ends are clamped to
 * the converted audio in case the container's duration was off.
 */
async function convertRecording(deps: PrepareDeps, dub: DubRecord, signal: AbortSignal, progress: (fraction: number, stage: string) => void): Promise<void> {
  const { store } = deps;
  const stored = await deps.sessions.storedName(dub.sessionId);
  if (!stored) throw new JobFailure('The recording was deleted.');
  const revision = (await store.revision(dub.id, 1))!;
  // Converted in this node's scratch, stored whole once complete.
  const tmp = deps.files.scratchFile('.wav');
  const expected = Math.max(1, dub.frames * frameBytes(dub));
  const writes = progressWrites(deps.log ?? console.error);
  const report = (fraction: number) => {
    progress(fraction, 'converting audio');
    writes.write(async () => {
      if ((await store.dubById(dub.id))?.status === 'preparing') await store.setProgress(dub.id, 'preparing', Math.min(0.99, fraction), 'converting audio');
    });
  };
  report(0);
  const timer = setInterval(() => {
    fs.stat(tmp, (error, stat) => {
      if (!error) report(Math.min(0.99, stat.size / expected));
    });
  }, CONVERT_POLL_MS);
  let layout;
  let speakerPitch;
  try {
    try {
      await deps.stored.withOriginal(dub.sessionId, stored, (file) => decodeToWav(deps.tools, file, tmp, dub, signal));
    } finally {
      clearInterval(timer);
      await writes.idle();
    }
    signal.throwIfAborted();
    const fd = fs.openSync(tmp, 'r');
    try {
      layout = readWavLayout(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (layout.frames === 0) throw new JobFailure("The recording's audio has no samples.");
    speakerPitch = measureSpeakerPitch(tmp, await store.lines(dub.id));
    // The waveform's peaks now, while the view shows progress, so it draws as soon as the dub is ready
    // (computed on the first request, they took seconds more after it, with no progress shown).
    progress(0.99, 'drawing the waveform');
    await store.setProgress(dub.id, 'preparing', 0.99, 'drawing the waveform');
    const peaks = await computePeaks(tmp, deps.tools, { signal });
    await deps.files.store(dubKeys.revision(dub.sessionId, dub.id, revision.fileName), tmp);
    await deps.files.blobs.put(dubKeys.peaks(dub.sessionId, dub.id, revision.number), JSON.stringify(peaks));
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const duration = layout.frames / layout.sampleRate;
  await store.transaction(async (tx) => {
    if (!(await tx.lockDub(dub.id))) return;
    await tx.setFormat(dub.id, layout);
    await tx.setSpeakerPitch(dub.id, speakerPitch);
    for (const line of await tx.lines(dub.id)) {
      if (line.end > duration) await tx.putLines(dub.id, [{ ...line, end: Math.max(line.start, duration), originalEnd: Math.min(line.originalEnd, duration) }]);
    }
    await tx.setProgress(dub.id, 'ready', 1, 'complete');
  });
  crashPoints.hit('dub-convert.after-ready');
}

/**
 * Lines for a dub uploaded without them: the dub is transcribed and aligned by the transcription
 * pipeline (speakers, segments, word timings), and each segment becomes a line.
 */
export function registerPrepareJob(runner: JobRunner, deps: PrepareDeps): void {
  const { store } = deps;
  const log = deps.log ?? console.error;
  // A preparing dub follows its job's end in the transaction that records it; a ready one (its preparation
  // committed before the job's end was recorded) stays ready.
  const settle = async (job: JobRecord, scope: TransactionScope) => {
    const id = String(job.payload.dub_id);
    const dubs = store.within(scope);
    if ((await dubs.dubById(id))?.status !== 'preparing') return;
    if (job.status === 'failed' || job.status === 'cancelled') await dubs.setProgress(id, 'failed', job.progress, 'failed', job.error ?? 'cancelled');
    else if (job.status === 'queued') await dubs.setProgress(id, 'preparing', 0, 'queued');
  };
  runner.register(DUB_CONVERT_JOB, { quick: true, settle }, async ({ job, signal, progress }) => {
    const dub = await store.dubById(String(job.payload.dub_id));
    if (!dub) throw new JobFailure('The dub was deleted.');
    // Delivered again after its preparation committed: nothing is left to do (the lines may have been edited since).
    if (dub.status === 'ready') return;
    return convertRecording(deps, dub, signal, progress);
  });
  runner.register(DUB_PREPARE_JOB, { settle }, async ({ job, signal, progress }) => {
    const dub = await store.dubById(String(job.payload.dub_id));
    if (!dub) throw new JobFailure('The dub was deleted.');
    if (dub.status === 'ready') return;
    if (job.payload.source === 'recording') return convertRecording(deps, dub, signal, progress);
    const session = await deps.sessions.summary(dub.sessionId);
    await deps.models.refresh();
    let engine;
    try {
      engine = deps.models.resolveRecognizer(undefined);
    } catch (error) {
      throw new JobFailure(error instanceof ServiceError ? error.message : 'No speech recognizer is installed.');
    }
    await store.setProgress(dub.id, 'preparing', 0, 'transcribing');
    const writes = progressWrites(log);
    const key = dubKeys.revision(dub.sessionId, dub.id, (await store.revision(dub.id, 1))!.fileName);
    let speakerPitch: Record<string, SpeakerPitch> = {};
    const transcript = await deps.files.withLocal(key, async (file) => {
      const transcript = await deps.transcription.transcribe({
        file,
        engine,
        language: session?.language ?? 'en',
        signal,
        onProgress: (fraction, stage) => {
          progress(fraction, stage);
          writes.write(() => store.setProgress(dub.id, 'preparing', Math.min(0.99, fraction), stage));
        },
      });
      signal.throwIfAborted();
      // Each speaker's pitch while the dub's audio is at hand (the lines are the segments' below).
      speakerPitch = measureSpeakerPitch(file, linesFromSegments(transcript.segments, dub.frames / dub.sampleRate, DUB_LINE_TEXT_MAX));
      return transcript;
    }).finally(() => writes.idle());
    signal.throwIfAborted();
    const duration = dub.frames / dub.sampleRate;
    const lines = linesFromSegments(transcript.segments, duration, DUB_LINE_TEXT_MAX);
    await store.transaction(async (tx) => {
      if (!(await tx.lockDub(dub.id))) return;
      await tx.setLines(dub.id, lines);
      await tx.setSpeakerPitch(dub.id, speakerPitch);
      await tx.setProgress(dub.id, 'ready', 1, lines.length ? 'complete' : 'no speech found');
    });
    crashPoints.hit('dub-prepare.after-lines');
  });
}
