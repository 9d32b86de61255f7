import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { DataLayout } from '../storage/files';
import { recordingKeys, type StoredFiles } from '../storage/stored-files';
import type { Database } from '../storage/stores';
import type { SessionStore } from '../storage/session-store';
import type { MediaTools } from '../media/tools';
import { contentTypeFor, NotMediaError, probeMedia } from '../media/probe';
import type { UploadedFile } from '../storage/uploaded-file';
import type { JobQueue } from '../jobs/job-runner';
import type { SessionSummary } from '../../shared/schemas';
import { currentActor } from '../audit/actor';

export const TRANSCRIBE_JOB = 'transcribe';

export interface IntakeDeps {
  layout: DataLayout;
  /** Where the original goes (the data folder, a shared folder or S3). */
  files: StoredFiles;
  tools: MediaTools;
  database: Database;
  jobs: JobQueue;
  /** Waveform peaks, computed in the background once the recording is stored (the studio's first open reads them). */
  peaks?: { warm(sessionId: string): void };
}

export interface IntakeOptions {
  projectKey: string;
  projectName?: string;
  language: string;
  /** Stored with the job: engine id, prompt, speaker bounds… */
  jobPayload?: Record<string, unknown>;
  /** False for a recording transcribed in its request (the OpenAI route): that call's decoders need the cores. */
  warmPeaks?: boolean;
}

function storedExtension(fileName: string, container: string): string {
  const fromName = path.extname(fileName).slice(1).toLowerCase();
  if (/^[a-z0-9]{1,8}$/.test(fromName)) return fromName;
  const fromContainer = container.split(',')[0]!.toLowerCase();
  return /^[a-z0-9]{1,8}$/.test(fromContainer) ? fromContainer : 'bin';
}

/**
 * Files an uploaded recording: probes it, stores it whole in the blob store (size checked), and only then
 * records the session (and the project, when its key is new) in one transaction, so no row ever points at a
 * half-stored file. Anything that fails leaves nothing behind; a crash between the two leaves an object no
 * row names, which the start-up sweep removes once it is older than its grace period.
 */
export async function intakeRecording(deps: IntakeDeps, upload: UploadedFile, options: IntakeOptions): Promise<SessionSummary> {
  if (upload.size === 0) throw new NotMediaError('The file is empty.');
  const probe = await probeMedia(deps.tools, upload.path);
  const id = crypto.randomUUID();
  const storedName = `original.${storedExtension(upload.fileName, probe.container)}`;
  try {
    await deps.files.storeOriginal(id, storedName, upload);
    await deps.database.transaction(async ({ projects, sessions, jobs, audit }) => {
      const { project } = await projects.findOrCreate(options.projectKey, options.projectName ?? options.projectKey);
      await sessions.insert({
        id,
        projectId: project.id,
        fileName: upload.fileName,
        storedName,
        duration: probe.duration,
        language: options.language,
        format: {
          container: probe.container,
          codec: probe.codec,
          sample_rate: probe.sampleRate,
          channels: probe.channels,
          size_bytes: upload.size,
          content_type: contentTypeFor(probe),
          has_video: probe.hasVideo,
        },
      });
      await deps.jobs.enqueue(TRANSCRIBE_JOB, id, options.jobPayload ?? {}, jobs);
      await audit.append({
        kind: 'recording.created',
        actor: currentActor(),
        project: { id: project.id, key: project.key },
        object: { type: 'recording', id },
        detail: { file_name: upload.fileName, bytes: upload.size },
      });
    });
  } catch (error) {
    // The first failure is the one to report; what a failed clean-up leaves, no row names, and the sweep removes.
    await deps.files.deleteRecording(id).catch(() => undefined);
    throw error;
  }
  if (options.warmPeaks !== false) deps.peaks?.warm(id);
  return (await deps.database.sessions.summary(id))!;
}

/**
 * How old an object no row names must be before the start-up sweep removes it. Intake stores the file
 * before its row commits, so on a shared store another node's upload is briefly an orphan; an hour is far
 * longer than any intake takes between the two (docs/team-server.md).
 */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes what a crash left behind. Recordings in the blob store (the data folder, a shared folder or S3)
 * that no session names go only once their newest object is older than `graceMs`: another node may be
 * between storing an upload and committing its row. The node's own uploads and scratch folders are emptied
 * whole: they live in this service's data folder, which the data lock gives to it alone.
 */
export async function sweepOrphans(
  files: StoredFiles,
  layout: DataLayout,
  sessions: Pick<SessionStore, 'allIds'>,
  options: { now?: number; graceMs?: number } = {},
): Promise<number> {
  const now = options.now ?? Date.now();
  const graceMs = options.graceMs ?? SWEEP_GRACE_MS;
  // Listed before the rows are read: an upload whose row commits in between is then known, not swept.
  const newest = new Map<string, number>();
  for (const entry of await files.blobs.entries('recordings/')) {
    const id = entry.key.split('/')[1]!;
    newest.set(id, Math.max(newest.get(id) ?? 0, entry.modified.getTime()));
  }
  const known = await sessions.allIds();
  let removed = 0;
  for (const [id, modified] of newest) {
    if (known.has(id) || now - modified < graceMs) continue;
    await files.blobs.deletePrefix(recordingKeys.prefix(id));
    removed++;
  }
  // Local recording folders without stored objects: empty ones in the data folder, and in S3 mode the node's
  // local dub folders of deleted recordings.
  // A team node makes no recordings folder (storage/files.ts), so there may be none.
  for (const name of fs.existsSync(layout.recordings) ? fs.readdirSync(layout.recordings) : []) {
    if (known.has(name) || newest.has(name)) continue;
    const dir = path.join(layout.recordings, name);
    if (files.isDataFolder && now - fs.statSync(dir).mtimeMs < graceMs) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    removed++;
  }
  for (const folder of [layout.uploads, layout.scratch]) {
    for (const name of fs.readdirSync(folder)) {
      fs.rmSync(path.join(folder, name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
