import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import type { SessionStore } from '../storage/session-store';
import type { TranscriptRevisionStore } from '../storage/revision-store';
import type { MediaTools } from '../media/tools';
import { decodeAudioToArray } from '../media/decode';
import { JobFailure, type JobContext, type JobQueue, type JobRunner } from '../jobs/job-runner';
import type { JobStore } from '../storage/job-store';
import { profileOfSpans } from '../speech/speakers/span-profile';
import type { Span, Transcript } from '../speech/types';
import type { SessionSpeakerEditor } from './session-speakers';

export const SPEAKER_PROFILES_JOB = 'speaker-profiles';

export interface SpeakerProfilesDeps {
  sessions: SessionStore;
  revisions: TranscriptRevisionStore;
  layout: DataLayout;
  /** The recording's original, as a local file for the decoder. */
  files: StoredFiles;
  tools: MediaTools;
  speakers: SessionSpeakerEditor;
}

/** Where a label speaks: its words, or its lines where a line has no word timings. */
export function speechOf(transcript: Transcript, label: string): Span[] {
  return transcript.segments
    .filter((s) => s.speaker === label)
    .flatMap((s) => (s.words.length ? s.words.map((w) => ({ start: w.start, end: w.end })) : [{ start: s.start, end: s.end }]));
}

/**
 * Queues a measurement unless one is already waiting for the session (it will read the newest revision).
 * `within`: the job store of the caller's transaction, so the job is queued only if it commits.
 */
export async function queueSpeakerProfiles(jobs: JobQueue, sessionId: string, within?: JobStore): Promise<void> {
  if (!(await (within ?? jobs).waiting(SPEAKER_PROFILES_JOB, sessionId))) await jobs.enqueue(SPEAKER_PROFILES_JOB, sessionId, {}, within);
}

/**
 * After speaker fixes: measures the voice profile of every label the edits touched (the editor moved
 * speech between voices, so the diarizer's profiles no longer describe them) from the recording, stores
 * them on the current revision, then brings the speaker map and the project's voice profiles in line.
 */
export function registerSpeakerProfilesJob(deps: SpeakerProfilesDeps, runner: JobRunner): void {
  runner.register(SPEAKER_PROFILES_JOB, async ({ job, signal }: JobContext) => {
    const sessionId = job.session_id;
    const stored = await deps.sessions.storedName(sessionId);
    const transcript = await deps.sessions.transcript(sessionId);
    if (!stored || !transcript) throw new JobFailure('The recording or its transcript no longer exists.');
    const revision = await deps.revisions.current(sessionId);
    // Labels whose speech an edit changed since the last restore (a restored snapshot has its own profiles).
    const touched = new Set<string>();
    for (const r of await deps.revisions.list(sessionId, transcript)) {
      if (r.edit?.op === 'restore') touched.clear();
      for (const label of r.edit?.touched ?? []) touched.add(label);
    }
    const measure = transcript.speakers.filter((l) => touched.has(l) || !transcript.profiles?.[l]);
    if (measure.length > 0) {
      const pcm = await deps.files.withOriginal(sessionId, stored, (file) => decodeAudioToArray(file, deps.tools, { signal }));
      const profiles = { ...(transcript.profiles ?? {}) };
      for (const label of measure) {
        signal.throwIfAborted();
        const profile = profileOfSpans(pcm, speechOf(transcript, label));
        if (profile) profiles[label] = profile;
        else delete profiles[label];
      }
      // A newer edit queued its own measurement: this one's result is stale.
      if (!(await deps.revisions.setProfiles(sessionId, revision, profiles))) return;
    }
    await deps.speakers.reconcile(sessionId);
  });
}
