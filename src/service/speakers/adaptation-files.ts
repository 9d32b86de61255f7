import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../storage/blobs/blob-store';
import { downloadAside } from '../storage/blobs/download-aside';
import type { AdaptationState } from '../storage/adaptation-store';

/**
 * Speaker adaptation's files on the blob store (the data folder by default, a shared folder or S3 in team
 * mode), so any worker adapts a speaker further and any worker decodes with the result:
 *
 *   adaptation/<project>/<speaker>/<tag>/rec/<recording>/…   one recording's bw sums (`<session>` or `<session>.corrected`)
 *   adaptation/<project>/<speaker>/<tag>/transform.mllr      the MLLR transform
 *   adaptation/<project>/<speaker>/<tag>/means               MAP-adapted means
 *
 * `<tag>` is new for every estimate (`v<version>-<random>`), so a key, once a state names it, always holds the
 * same bytes: a node's local copy of it is never stale. Which keys are current is the speaker's state in the
 * database (storage/adaptation-store.ts); keys no state names are crash leftovers or superseded (sweepAdaptation).
 */
export const adaptationKeys = {
  root: 'adaptation/',
  project: (projectId: string) => `adaptation/${projectId}/`,
  speaker: (projectId: string, speakerId: string) => `adaptation/${projectId}/${speakerId}/`,
  estimate: (projectId: string, speakerId: string, version: number) =>
    `adaptation/${projectId}/${speakerId}/v${version}-${crypto.randomBytes(4).toString('hex')}/`,
};

/** Every object key a state names. */
export function stateKeys(state: AdaptationState): string[] {
  const keys = state.recordings.flatMap((r) => r.files.map((f) => r.prefix + f));
  if (state.transform) keys.push(state.transform);
  if (state.means) keys.push(state.means);
  return keys;
}

/** A set of local copies, kept until released. */
export interface HeldCopies {
  release(): void;
}

/**
 * This node's local copies of adaptation objects (bw, mllr_solve and the decoders read files), each downloaded
 * once (keys never change content) into a folder of the node's scratch, which start-up empties. A copy no longer
 * named (`forget`) goes once no one holds it: a transcription decoding with a superseded transform keeps it.
 */
export class AdaptationCache {
  private readonly ready = new Map<string, Promise<void>>();
  private readonly users = new Map<string, number>();
  private readonly forgotten = new Set<string>();

  constructor(
    private readonly blobs: BlobStore,
    readonly dir: string,
  ) {}

  /** Local copies of `keys`; throws (holding nothing) when one is missing from the store. */
  async hold(keys: readonly string[]): Promise<HeldCopies> {
    for (const key of keys) this.users.set(key, (this.users.get(key) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const left = (this.users.get(key) ?? 1) - 1;
        if (left > 0) this.users.set(key, left);
        else {
          this.users.delete(key);
          if (this.forgotten.delete(key)) this.drop(key);
        }
      }
    };
    try {
      await Promise.all(keys.map((key) => this.fetched(key)));
    } catch (error) {
      release();
      throw error;
    }
    return { release };
  }

  /** Copies of keys no state names any more: removed now, or when their last holder lets go. */
  forget(keys: readonly string[]): void {
    for (const key of keys) {
      if (this.users.has(key)) this.forgotten.add(key);
      else this.drop(key);
    }
  }

  /** Takes a finished local file in as the copy of `key` (just stored from it: no download). */
  adopt(key: string, file: string): void {
    const local = this.path(key);
    fs.mkdirSync(path.dirname(local), { recursive: true, mode: 0o700 });
    fs.copyFileSync(file, local);
    this.ready.set(key, Promise.resolve());
  }

  /** The local file of a key, or the local folder of a prefix (holding the files held under it). */
  path(keyOrPrefix: string): string {
    return path.join(this.dir, ...keyOrPrefix.split('/').filter(Boolean));
  }

  private fetched(key: string): Promise<void> {
    let ready = this.ready.get(key);
    if (!ready) {
      ready = this.download(key);
      this.ready.set(key, ready);
      ready.catch(() => this.ready.delete(key));
    }
    return ready;
  }

  private async download(key: string): Promise<void> {
    if (!(await downloadAside(this.blobs, key, this.path(key)))) throw new Error(`adaptation: ${key} is missing from ${this.blobs.description}`);
  }

  private drop(key: string): void {
    this.ready.delete(key);
    fs.rmSync(this.path(key), { force: true });
  }
}

const ID = /^[0-9a-f-]{36}$/;
const TAG = /^v\d+-[0-9a-f]{8}$/;

/**
 * Removes adaptation objects no live speaker's state names, under `adaptation/<project>/` (or every project):
 * a speaker that no longer exists (merged, deleted, or its project gone) loses its objects at once — its row went
 * with it, and no estimate can name them again; a live speaker's unnamed objects (a crashed estimate's, or
 * superseded ones whose removal failed) go once older than `graceMs`, since another node may be between storing
 * them and committing the state that names them. Only project and speaker folders named by ids are looked at
 * (the desktop's data folder also keeps the expanded training model under `adaptation/`). Returns how many
 * objects went.
 */
export async function sweepAdaptation(
  blobs: BlobStore,
  states: { forProject(projectId: string): Promise<Array<{ state: AdaptationState }>> },
  liveSpeakers: (projectId: string) => Promise<ReadonlySet<string>>,
  options: { projectId?: string; graceMs: number; now?: number },
): Promise<number> {
  const now = options.now ?? Date.now();
  // Listed before the speakers and states are read: an object whose speaker or state commits in between is then known.
  const entries = await blobs.entries(options.projectId ? adaptationKeys.project(options.projectId) : adaptationKeys.root);
  const bySpeaker = new Map<string, typeof entries>();
  for (const entry of entries) {
    const [, project, speaker] = entry.key.split('/');
    if (!project || !speaker || !ID.test(project) || !ID.test(speaker) || entry.key.split('/').length < 4) continue;
    const id = `${project}/${speaker}`;
    if (!bySpeaker.has(id)) bySpeaker.set(id, []);
    bySpeaker.get(id)!.push(entry);
  }
  let removed = 0;
  const projects = new Map<string, { live: ReadonlySet<string>; named: Set<string> }>();
  for (const [id, objects] of bySpeaker) {
    const [projectId, speakerId] = id.split('/') as [string, string];
    let project = projects.get(projectId);
    if (!project) {
      project = { live: await liveSpeakers(projectId), named: new Set((await states.forProject(projectId)).flatMap((s) => stateKeys(s.state))) };
      projects.set(projectId, project);
    }
    if (!project.live.has(speakerId)) {
      removed += await blobs.deletePrefix(adaptationKeys.speaker(projectId, speakerId));
      continue;
    }
    for (const { key, modified } of objects) {
      // Only estimates' keys: a desktop folder's files from before (legacy-adaptation.ts) are moved, not swept.
      if (!TAG.test(key.split('/')[3]!) || project.named.has(key) || now - modified.getTime() < options.graceMs) continue;
      await blobs.delete(key);
      removed++;
    }
  }
  return removed;
}
