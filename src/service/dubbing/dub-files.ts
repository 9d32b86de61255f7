import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataLayout } from '../storage/files';
import type { DubStore } from '../storage/dub-store';
import type { BlobStore } from '../storage/blobs/blob-store';
import type { LocalCopy } from '../storage/blobs/local-copies';
import { recordingKeys, type ServableFile, type StoredFiles } from '../storage/stored-files';
import { decodePatch, encodePatch, type LinePatch } from './patch-file';

/**
 * A dub's files in the blob store (the data folder by default, a shared folder or S3 in team mode), under its
 * recording's prefix (so deleting the recording takes them along), with the names the data folder has always
 * used, so a desktop's folder needs nothing:
 *
 *   recordings/<session>/dubs/<dub>/revisions/r0001.wav   every revision, whole, as WAV
 *   recordings/<session>/dubs/<dub>/background.wav        the music-and-effects stem, at the dub's format
 *   recordings/<session>/dubs/<dub>/work/<revoice>/       a revoice's rendered lines (its checkpoints: any
 *                                                         worker resumes from them), removed when it is done
 *   recordings/<session>/dubs/<dub>/peaks/r0001.json      waveform peaks of a revision
 *   recordings/<session>/dubs/<dub>/takes/<take>.patch     a line's take as rendered (for putting it in)
 *   recordings/<session>/dubs/<dub>/takes/<take>.wav       the take's region as the dub would sound with it
 *
 * Files being made (a decoded upload, a revision being assembled) are built in this node's scratch folder and
 * stored whole before any row names them. Names come from ids the service made, never from client input.
 */
export const dubKeys = {
  prefix: (sessionId: string, dubId: string) => `${recordingKeys.prefix(sessionId)}dubs/${dubId}/`,
  revision: (sessionId: string, dubId: string, fileName: string) => `${dubKeys.prefix(sessionId, dubId)}revisions/${fileName}`,
  background: (sessionId: string, dubId: string) => `${dubKeys.prefix(sessionId, dubId)}background.wav`,
  work: (sessionId: string, dubId: string, revoiceId: string) => `${dubKeys.prefix(sessionId, dubId)}work/${revoiceId}/`,
  workFile: (sessionId: string, dubId: string, revoiceId: string, fileName: string) => `${dubKeys.work(sessionId, dubId, revoiceId)}${fileName}`,
  take: (sessionId: string, dubId: string, fileName: string) => `${dubKeys.prefix(sessionId, dubId)}takes/${fileName}`,
  peaks: (sessionId: string, dubId: string, revision: number) => `${dubKeys.prefix(sessionId, dubId)}peaks/${revisionStem(revision)}.json`,
};

export function revisionStem(number: number): string {
  return `r${String(number).padStart(4, '0')}`;
}

/** A dub's files: stored objects, local copies of them for the decoders and mixers, and scratch files. */
export class DubFiles {
  constructor(
    readonly stored: StoredFiles,
    private readonly layout: DataLayout,
  ) {}

  get blobs(): BlobStore {
    return this.stored.blobs;
  }

  /** A new temporary file's name in this node's scratch folder (emptied at start-up). */
  scratchFile(extension: string): string {
    fs.mkdirSync(this.layout.scratch, { recursive: true, mode: 0o700 });
    return path.join(this.layout.scratch, `dub-${crypto.randomUUID()}${extension}`);
  }

  /** Stores a finished local file under `key`; the local file is gone afterwards. */
  store(key: string, file: string): Promise<void> {
    return this.stored.storeFile(key, file);
  }

  /** A local file of the object to read (the object's own file in a folder store); release it when done. */
  local(key: string): Promise<LocalCopy> {
    return this.stored.copies.acquire(key);
  }

  withLocal<T>(key: string, use: (file: string) => Promise<T>): Promise<T> {
    return this.stored.copies.with(key, use);
  }

  /** Copies the object into a local file the caller will change; false when there is none. */
  copyOut(key: string, file: string): Promise<boolean> {
    return this.stored.copyOut(key, file);
  }

  servable(key: string): ServableFile | null {
    return this.stored.servable(key);
  }

  putPatch(key: string, patch: LinePatch): Promise<void> {
    return this.blobs.put(key, encodePatch(patch));
  }

  async readPatch(key: string): Promise<LinePatch> {
    const bytes = await this.blobs.get(key);
    if (!bytes) throw new Error(`The rendered line ${key} is missing from ${this.blobs.description}.`);
    return decodePatch(bytes, key);
  }

  /** Every file of the dub. */
  async removeDub(sessionId: string, dubId: string): Promise<void> {
    await this.blobs.deletePrefix(dubKeys.prefix(sessionId, dubId));
  }

  /** A take's two files (its patch and its audition). */
  async removeTake(sessionId: string, dubId: string, takeId: string): Promise<void> {
    await this.blobs.delete(dubKeys.take(sessionId, dubId, `${takeId}.patch`));
    await this.blobs.delete(dubKeys.take(sessionId, dubId, `${takeId}.wav`));
  }

  async removeWork(sessionId: string, dubId: string, revoiceId: string): Promise<void> {
    await this.blobs.deletePrefix(dubKeys.work(sessionId, dubId, revoiceId));
  }
}

/**
 * Removes what a crash can leave behind in the store: files of dubs no row owns (an upload cut short),
 * revision files no row names (a revoice killed between storing its revision and its commit), files of takes
 * whose rows were removed (a crash before their files went), temporary
 * files an older version left, and the rendered lines of revoices that are no longer running. A file goes
 * only once it is older than `graceMs`: in team mode another node may be between storing a file and
 * committing the row that names it (the embedded service, alone with its data folder, passes 0). Runs at
 * start, before jobs resume.
 */
export async function sweepDubFiles(
  files: DubFiles,
  store: DubStore,
  options: { now?: number; graceMs?: number } = {},
): Promise<number> {
  const now = options.now ?? Date.now();
  const graceMs = options.graceMs ?? 0;
  // Listed before the rows are read: a file whose row commits in between is then known, not swept.
  const byDub = new Map<string, Array<{ key: string; rest: string[]; old: boolean }>>();
  for (const entry of await files.blobs.entries('recordings/')) {
    const parts = entry.key.split('/');
    if (parts[2] !== 'dubs' || parts.length < 5) continue;
    const dub = `${parts[1]}/${parts[3]}`;
    if (!byDub.has(dub)) byDub.set(dub, []);
    byDub.get(dub)!.push({ key: entry.key, rest: parts.slice(4), old: now - entry.modified.getTime() >= graceMs });
  }
  const known = new Map((await store.allDubIds()).map((d) => [d.dubId, d.sessionId]));
  let removed = 0;
  const remove = async (key: string) => {
    await files.blobs.delete(key);
    removed++;
  };
  for (const [dub, entries] of byDub) {
    const [sessionId, dubId] = dub.split('/') as [string, string];
    if (known.get(dubId) !== sessionId) {
      // A dub's files go together, once the newest of them is old enough.
      if (entries.every((e) => e.old)) removed += await files.blobs.deletePrefix(dubKeys.prefix(sessionId, dubId));
      continue;
    }
    const named = new Set((await store.revisions(dubId)).map((r) => r.fileName));
    const takes = new Set((await store.dubTakes(dubId)).map((t) => t.id));
    const active = new Set((await store.revoices(dubId)).filter((r) => r.status === 'queued' || r.status === 'running').map((r) => r.id));
    // The rendered lines of a revoice no longer running go together (a folder store's folder with them).
    const finished = new Map<string, boolean>();
    for (const { rest, old } of entries) {
      if (rest[0] === 'work' && rest.length > 2 && !active.has(rest[1]!)) finished.set(rest[1]!, (finished.get(rest[1]!) ?? true) && old);
    }
    for (const [revoiceId, allOld] of finished) {
      if (allOld) removed += await files.blobs.deletePrefix(dubKeys.work(sessionId, dubId, revoiceId));
    }
    for (const { key, rest, old } of entries) {
      if (!old) continue;
      const [folder, name] = rest;
      const orphan =
        (folder === 'revisions' && rest.length === 2 && !named.has(name!)) ||
        // A take removed by a crash between its row and its files (takes.ts pruneRows).
        (folder === 'takes' && rest.length === 2 && !takes.has(name!.replace(/\.(patch|wav)$/, ''))) ||
        (folder === 'work' && active.has(name!) && key.endsWith('.tmp')) ||
        (rest.length === 1 && folder!.endsWith('.tmp'));
      if (orphan) await remove(key);
    }
  }
  return removed;
}
