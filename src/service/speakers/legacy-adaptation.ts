import fs from 'node:fs';
import path from 'node:path';
import type { AdaptationRecording, AdaptationStore, AdaptationSummary } from '../storage/adaptation-store';
import { adaptationKeys } from './adaptation-files';

const ID = /^[0-9a-f-]{36}$/;
/** What a speaker's folder held before its files moved onto the blob store. */
const LEGACY = ['rec', 'transform.mllr', 'means', 'state.json'];

/**
 * Moves a desktop data folder's speaker adaptation from before the blob store onto it: each speaker's
 * folder `<dir>/<project>/<speaker>/` (`rec/<id>/` bw's sums with `rec/<id>.json`, `transform.mllr`, `means`,
 * `state.json`) becomes one estimate's keys (adaptation-files.ts) and a state in the database, then the old
 * files go. Nothing is estimated again: the next transcription decodes with the same transform. A speaker that
 * no longer exists loses its folder, as the sweep would have removed it. A move cut short leaves the rest for
 * the next start (what it had stored is swept after the grace). `storeFile` moves a local file in under a key.
 * Returns how many speakers moved.
 */
export async function moveLegacyAdaptation(
  dir: string,
  store: AdaptationStore,
  storeFile: (key: string, file: string) => Promise<void>,
  liveSpeakers: (projectId: string) => Promise<ReadonlySet<string>>,
  log: (line: string) => void,
): Promise<number> {
  let moved = 0;
  for (const projectId of readdir(dir).filter((n) => ID.test(n))) {
    const live = await liveSpeakers(projectId);
    for (const speakerId of readdir(path.join(dir, projectId)).filter((n) => ID.test(n))) {
      const folder = path.join(dir, projectId, speakerId);
      if (!LEGACY.some((name) => fs.existsSync(path.join(folder, name)))) continue;
      if (!live.has(speakerId)) {
        removeLegacy(folder);
        continue;
      }
      try {
        await store.exclusive(speakerId, async (locked) => {
          if (await locked.get(speakerId)) return; // moved already; only its old files were left
          await locked.save({ speakerId, projectId, version: 1, state: await storeLegacy(folder, adaptationKeys.estimate(projectId, speakerId, 1), storeFile) });
          moved++;
        });
        removeLegacy(folder);
      } catch (error) {
        log(`adaptation: the files of speaker ${speakerId} in ${folder} were not moved onto the storage: ${(error as Error).message}`);
      }
    }
  }
  if (moved > 0) log(`adaptation: moved ${moved} speaker(s)' adaptation from ${dir} onto the storage`);
  return moved;
}

async function storeLegacy(folder: string, base: string, storeFile: (key: string, file: string) => Promise<void>) {
  const recDir = path.join(folder, 'rec');
  const recordings: AdaptationRecording[] = [];
  for (const name of readdir(recDir)) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const id = name.slice(0, -5);
    const sums = path.join(recDir, id);
    let meta: { seconds: number; at: string; corrected?: boolean };
    try {
      meta = JSON.parse(fs.readFileSync(path.join(recDir, name), 'utf8')) as typeof meta;
    } catch {
      continue; // a damaged note: its statistics were not used before either
    }
    const files = readdir(sums).filter((f) => fs.statSync(path.join(sums, f)).isFile());
    if (files.length === 0) continue;
    const prefix = `${base}rec/${id}/`;
    for (const f of files) await storeFile(prefix + f, path.join(sums, f));
    recordings.push({ id, seconds: meta.seconds, at: meta.at, ...(meta.corrected ? { corrected: true } : {}), prefix, files });
  }
  const stored = async (name: string) => {
    if (!fs.existsSync(path.join(folder, name))) return null;
    await storeFile(base + name, path.join(folder, name));
    return base + name;
  };
  const transform = await stored('transform.mllr');
  const means = transform ? await stored('means') : null;
  let summary: AdaptationSummary | null = null;
  if (transform) {
    const sum = (list: AdaptationRecording[]) => Math.round(list.reduce((a, r) => a + r.seconds, 0) * 10) / 10;
    let state: Partial<AdaptationSummary> = {};
    try {
      state = JSON.parse(fs.readFileSync(path.join(folder, 'state.json'), 'utf8')) as AdaptationSummary;
    } catch {
      // No summary kept (or a damaged one): the kept statistics say the same.
    }
    summary = {
      recordings: state.recordings ?? new Set(recordings.map((r) => r.id.replace('.corrected', ''))).size,
      seconds: state.seconds ?? sum(recordings),
      // A state written before corrections were told apart had none.
      corrected_seconds: state.corrected_seconds ?? sum(recordings.filter((r) => r.corrected)),
      map_means: means !== null,
      updated_at: state.updated_at ?? new Date().toISOString(),
    };
  }
  return { recordings, transform, means, summary };
}

function removeLegacy(folder: string): void {
  for (const name of [...LEGACY, ...readdir(folder).filter((n) => n.startsWith('.work-'))]) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  if (readdir(folder).length === 0) fs.rmSync(folder, { recursive: true, force: true });
}

function readdir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
