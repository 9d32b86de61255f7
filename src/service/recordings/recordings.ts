import type { Readable } from 'node:stream';
import type { Media, MediaPatch, Session, SessionSummary } from '../../shared/schemas';
import type { Transcript } from '../speech/types';
import { currentActor } from '../audit/actor';
import { ConflictError, InvalidInputError, issue, NotFoundError } from '../errors';
import type { JobQueue } from '../jobs/job-runner';
import type { EditorMarkerRecord, EditorMarkerStore } from '../storage/editor-marker-store';
import type { Database } from '../storage/stores';
import type { ServableFile, StoredFiles } from '../storage/stored-files';
import type { SessionPage } from '../storage/session-store';
import type { BlobInfo, ByteRange } from '../storage/blobs/blob-store';
import type { SpeakerMapEntry } from '../speakers/speaker-directory';
import { TRANSCRIBE_JOB } from './intake';
import { mergeTimebase } from './timebase';

export interface RecordingsDeps {
  database: Database;
  markers: EditorMarkerStore;
  jobs: Pick<JobQueue, 'retry' | 'cancelSession'>;
  files: Pick<StoredFiles, 'deleteRecording' | 'withOriginal' | 'servableOriginal' | 'statOriginal' | 'readOriginal'>;
  /** The recording's speakers as its document names them (S1 → the project speaker). */
  speakerMap(sessionId: string): Promise<Record<string, SpeakerMapEntry>>;
}

/** Which recordings a listing shows: of one project (by key), within the projects a caller sees (null: all). */
export interface RecordingFilter {
  projectKey?: string;
  projectIds: readonly string[] | null;
  limit: number;
  offset: number;
}

/** A recording's original as stored: a local file to send as it is, or a blob read (a range of it) from the store. */
export interface StoredOriginal {
  summary: SessionSummary;
  /** The file on this machine's disk, or null when the blob store is remote (S3). */
  servable: ServableFile | null;
  stat(): Promise<BlobInfo | null>;
  read(range?: ByteRange): Promise<Readable | null>;
}

/** A marker's place and name, as the editor sets them. */
export interface MarkerChange {
  time?: number;
  name?: string;
}

/**
 * A recording's own use cases (finding it, deleting it, retrying its transcription, its timebase, the editor's
 * markers on it, its original and exports), over the stores and files it spans. Field paths in its errors
 * name the input's fields only; the transport says where they were sent.
 */
export class Recordings {
  constructor(private readonly deps: RecordingsDeps) {}

  /** The recording, or `NotFoundError` when there is none with this id. */
  async require(id: string): Promise<SessionSummary> {
    const summary = await this.deps.database.sessions.summary(id);
    if (!summary) throw new NotFoundError('Transcription session not found.');
    return summary;
  }

  /** Newest first. A project the caller may not see reads as one that does not exist. */
  async list(filter: RecordingFilter): Promise<SessionPage> {
    let projectId: string | undefined;
    if (filter.projectKey !== undefined) {
      const project = await this.deps.database.projects.find(filter.projectKey);
      if (!project || (filter.projectIds && !filter.projectIds.includes(project.id))) throw new NotFoundError('Project not found.');
      projectId = project.id;
    }
    return this.deps.database.sessions.list({ projectId, projectIds: filter.projectIds, limit: filter.limit, offset: filter.offset });
  }

  /** The recording's document as an object (after an edit, to answer with the recording as it now reads). */
  async session(id: string): Promise<Session> {
    const found = await this.deps.database.sessions.get(id);
    if (!found) throw new NotFoundError('Transcription session not found.');
    return { ...found, speaker_map: await this.deps.speakerMap(id) };
  }

  /** The recording's change counter (what its document is cached and ETagged by), or null for no such recording. */
  changeSeq(id: string): Promise<number | null> {
    return this.deps.database.sessions.changeSeq(id);
  }

  /** The recording's document (summary, transcript and speaker map) as UTF-8 JSON. */
  async document(id: string): Promise<Buffer> {
    const summary = await this.require(id);
    return this.deps.database.sessions.documentBytes(summary, await this.deps.speakerMap(id));
  }

  /** The stored original, or null when there is no such recording. */
  async original(id: string): Promise<StoredOriginal | null> {
    const summary = await this.deps.database.sessions.summary(id);
    const stored = await this.deps.database.sessions.storedName(id);
    if (!summary || !stored) return null;
    const { files } = this.deps;
    return {
      summary,
      servable: files.servableOriginal(id, stored),
      stat: () => files.statOriginal(id, stored),
      read: (range) => files.readOriginal(id, stored, range),
    };
  }

  /**
   * Removes the recording: its jobs are cancelled first (a running one stops before its rows go), then its rows
   * and the audit entry commit together, then its files go (a crash before that leaves objects no row names,
   * which the start-up sweep removes). Deleting one already gone meanwhile writes no entry.
   */
  async delete(summary: SessionSummary): Promise<void> {
    await this.deps.jobs.cancelSession(summary.id);
    await this.deps.database.transaction(async ({ sessions, audit }) => {
      if (!(await sessions.delete(summary.id))) return;
      await audit.append({
        kind: 'recording.deleted',
        actor: currentActor(),
        project: { id: summary.project.id, key: summary.project.key },
        object: { type: 'recording', id: summary.id },
        detail: { file_name: summary.file_name },
      });
    });
    await this.deps.files.deleteRecording(summary.id);
  }

  /** Queues a failed transcription again (its checkpoints are reused); the recording as it reads once queued. */
  async retry(id: string): Promise<SessionSummary> {
    const summary = await this.require(id);
    if (summary.status !== 'failed') throw new ConflictError(`Only a failed transcription can be retried (status: ${summary.status}).`);
    const queued = await this.deps.database.transaction(async ({ sessions, jobs }) => {
      const job = await this.deps.jobs.retry(TRANSCRIBE_JOB, id, jobs);
      if (job) await sessions.setProgress(id, 'queued', 0, 'queued');
      return job;
    });
    if (!queued) throw new ConflictError('This transcription is already queued again.');
    return this.require(id);
  }

  /** Applies a timebase change (see `mergeTimebase`) and stores the result. */
  async setTimebase(summary: SessionSummary, patch: MediaPatch): Promise<Media> {
    const media = mergeTimebase(summary.media, patch);
    await this.deps.database.sessions.setMedia(summary.id, media);
    return media;
  }

  /** The recording's transcript, or `ConflictError` while it is not ready. */
  async requireTranscript(summary: SessionSummary): Promise<Transcript> {
    const transcript = await this.deps.database.sessions.transcript(summary.id);
    if (!transcript) throw new ConflictError(`The transcript is not ready (status: ${summary.status}).`);
    return transcript;
  }

  /** Runs `use` on a local copy of the recording's original (fetched from the blob store when it is remote). */
  async withOriginal<T>(summary: SessionSummary, use: (file: string) => Promise<T>): Promise<T> {
    const stored = await this.deps.database.sessions.storedName(summary.id);
    if (!stored) throw new NotFoundError('Transcription session not found.');
    return this.deps.files.withOriginal(summary.id, stored, use);
  }

  /** A whole recording's export leaves the studio: recorded once it is made, before it is sent. */
  async recordExport(summary: SessionSummary, format: string): Promise<void> {
    await this.deps.database.audit.append({
      kind: 'recording.exported',
      actor: currentActor(),
      project: { id: summary.project.id, key: summary.project.key },
      object: { type: 'recording', id: summary.id },
      detail: { format, file_name: summary.file_name },
    });
  }

  markers(summary: SessionSummary): Promise<EditorMarkerRecord[]> {
    return this.deps.markers.list(summary.id);
  }

  async addMarker(summary: SessionSummary, time: number, name: string): Promise<EditorMarkerRecord> {
    withinRecording(time, summary.duration);
    return this.deps.markers.add(summary.id, time, name);
  }

  /** The marker changed, or `NotFoundError` when the recording has no such marker. */
  async updateMarker(summary: SessionSummary, markerId: string, change: MarkerChange): Promise<EditorMarkerRecord> {
    withinRecording(change.time, summary.duration);
    const marker = await this.deps.markers.update(summary.id, markerId, change);
    if (!marker) throw new NotFoundError('Marker not found on this recording.');
    return marker;
  }

  async removeMarker(summary: SessionSummary, markerId: string): Promise<void> {
    if (!(await this.deps.markers.remove(summary.id, markerId))) throw new NotFoundError('Marker not found on this recording.');
  }
}

function withinRecording(time: number | undefined, duration: number): void {
  if (time !== undefined && time > duration)
    throw new InvalidInputError([issue(['time'], `time must be within the recording (at most ${duration} s)`, 'less_than_equal', time, { le: duration })]);
}
