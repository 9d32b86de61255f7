import { JobFailure, type JobRunner } from '../jobs/job-runner';
import type { ModelRegistry } from '../models/registry';
import type { SessionStore } from '../storage/session-store';
import type { TranscriptionEngine } from '../transcription/engine';
import { ServiceError } from '../errors';
import type { DubStore, NewLine } from './dub-store';
import type { DubFiles } from './dub-files';
import { DUB_LINE_TEXT_MAX } from '../../shared/schemas';

export const DUB_PREPARE_JOB = 'dub-prepare';

export interface PrepareDeps {
  store: DubStore;
  files: DubFiles;
  sessions: SessionStore;
  models: ModelRegistry;
  transcription: TranscriptionEngine;
}

/**
 * Lines for a dub uploaded without them: the dub is transcribed and aligned by the transcription
 * pipeline (speakers, segments, word timings), and each segment becomes a line.
 */
export function registerPrepareJob(runner: JobRunner, deps: PrepareDeps): void {
  const { store } = deps;
  runner.register(DUB_PREPARE_JOB, async ({ job, signal, progress }) => {
    const dub = store.dubById(String(job.payload.dub_id));
    if (!dub) throw new JobFailure('The dub was deleted.');
    const session = deps.sessions.summary(dub.sessionId);
    let engine;
    try {
      engine = deps.models.resolveRecognizer(undefined);
    } catch (error) {
      throw new JobFailure(error instanceof ServiceError ? error.message : 'No speech recognizer is installed.');
    }
    store.setProgress(dub.id, 'preparing', 0, 'transcribing');
    const transcript = await deps.transcription.transcribe({
      file: deps.files.revision(dub.sessionId, dub.id, store.revision(dub.id, 1)!.fileName),
      engine,
      language: session?.language ?? 'en',
      signal,
      onProgress: (fraction, stage) => {
        progress(fraction, stage);
        store.setProgress(dub.id, 'preparing', Math.min(0.99, fraction), stage);
      },
    });
    signal.throwIfAborted();
    const duration = dub.frames / dub.sampleRate;
    const lines: NewLine[] = [];
    let previousEnd = 0;
    for (const segment of transcript.segments) {
      const text = segment.text.trim().slice(0, DUB_LINE_TEXT_MAX);
      // Lines may not overlap; the pipeline's segments do not, but keep the rule whatever it returns.
      const start = Math.max(segment.start, previousEnd);
      const end = Math.min(segment.end, duration);
      if (!text || end <= start) continue;
      lines.push({
        id: lines.length + 1,
        speaker: segment.speaker,
        start,
        end,
        text,
        voice: null,
        words: segment.words.map((w) => ({ word: w.word, start: w.start, end: w.end })),
      });
      previousEnd = end;
    }
    store.db.transaction(() => {
      store.setLines(dub.id, lines);
      store.setProgress(dub.id, 'ready', 1, lines.length ? 'complete' : 'no speech found');
    })();
  });

  runner.on('settled', (job) => {
    if (job.kind !== DUB_PREPARE_JOB) return;
    const id = String(job.payload.dub_id);
    if (job.status === 'failed' || job.status === 'cancelled') store.setProgress(id, 'failed', job.progress, 'failed', job.error ?? 'cancelled');
    if (job.status === 'queued') store.setProgress(id, 'preparing', 0, 'queued');
  });
}
