import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { DataLayout } from '../storage/files';
import { fsyncDir } from '../storage/files';
import type { Database } from '../storage/stores';
import type { SessionStore } from '../storage/session-store';
import type { MediaTools } from '../media/tools';
import { contentTypeFor, NotMediaError, probeMedia } from '../media/probe';
import type { UploadedFile } from '../storage/uploaded-file';
import type { JobQueue } from '../jobs/job-runner';
import type { SessionSummary } from '../../shared/schemas';

export const TRANSCRIBE_JOB = 'transcribe';

export interface IntakeDeps {
  layout: DataLayout;
  tools: MediaTools;
  database: Database;
  jobs: JobQueue;
}

export interface IntakeOptions {
  projectKey: string;
  projectName?: string;
  language: string;
  /** Stored with the job: engine id, prompt, speaker bounds… */
  jobPayload?: Record<string, unknown>;
  /** Skip the background job (the OpenAI endpoint transcribes in the request itself). */
  queueJob?: boolean;
}

function storedExtension(fileName: string, container: string): string {
  const fromName = path.extname(fileName).slice(1).toLowerCase();
  if (/^[a-z0-9]{1,8}$/.test(fromName)) return fromName;
  const fromContainer = container.split(',')[0]!.toLowerCase();
  return /^[a-z0-9]{1,8}$/.test(fromContainer) ? fromContainer : 'bin';
}

/**
 * Files an uploaded recording: probes it, moves it into the session's folder and records the session (and
 * the project, when its key is new) in one transaction. Anything that fails leaves nothing behind.
 */
export async function intakeRecording(deps: IntakeDeps, upload: UploadedFile, options: IntakeOptions): Promise<SessionSummary> {
  if (upload.size === 0) throw new NotMediaError('The file is empty.');
  const probe = await probeMedia(deps.tools, upload.path);
  const id = crypto.randomUUID();
  const dir = deps.layout.recording(id);
  const storedName = `original.${storedExtension(upload.fileName, probe.container)}`;
  fs.mkdirSync(dir, { recursive: true });
  try {
    fs.renameSync(upload.path, deps.layout.original(id, storedName));
    fsyncDir(dir);
    await deps.database.transaction(async ({ projects, sessions, jobs }) => {
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
      if (options.queueJob !== false) await deps.jobs.enqueue(TRANSCRIBE_JOB, id, options.jobPayload ?? {}, jobs);
    });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return (await deps.database.sessions.summary(id))!;
}

/** Removes recording folders and partial uploads that no session owns (left by a crash mid-upload). */
export async function sweepOrphans(layout: DataLayout, sessions: SessionStore): Promise<number> {
  const known = await sessions.allIds();
  let removed = 0;
  for (const name of fs.readdirSync(layout.recordings)) {
    if (!known.has(name)) {
      fs.rmSync(path.join(layout.recordings, name), { recursive: true, force: true });
      removed++;
    }
  }
  for (const folder of [layout.uploads, layout.scratch]) {
    for (const name of fs.readdirSync(folder)) {
      fs.rmSync(path.join(folder, name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
