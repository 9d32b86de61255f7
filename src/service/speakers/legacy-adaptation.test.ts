import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { SqlAdaptationStore } from '../storage/adaptation-store';
import { FolderBlobStore } from '../storage/blobs/folder-blob-store';
import { StoredFiles } from '../storage/stored-files';
import { DataLayout } from '../storage/files';
import { moveLegacyAdaptation } from './legacy-adaptation';
import { stateKeys, sweepAdaptation } from './adaptation-files';

const PROJECT = '00000000-0000-4000-8000-000000000001';
const SPEAKER = '00000000-0000-4000-8000-000000000002';
const GONE = '00000000-0000-4000-8000-000000000003';
const SESSION = '00000000-0000-4000-8000-100000000001';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A desktop data folder as a Takeline from before the blob store left it: a speaker's adaptation files under adaptation/. */
function legacyDataFolder() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-legacy-adaptation-'));
  roots.push(root);
  const db = openDatabase(path.join(root, 'takeline.db'));
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES (?, 'p', 'P', '2026-01-01T00:00:00Z')").run(PROJECT);
  db.prepare("INSERT INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES (?, ?, 1, 'A', 'S1', '{}', '2026-01-01T00:00:00Z')").run(SPEAKER, PROJECT);
  const speaker = path.join(root, 'adaptation', PROJECT, SPEAKER);
  fs.mkdirSync(path.join(speaker, 'rec', SESSION), { recursive: true });
  fs.writeFileSync(path.join(speaker, 'rec', SESSION, 'gauden_counts'), Buffer.from([1, 2, 3, 4]));
  fs.writeFileSync(path.join(speaker, 'rec', `${SESSION}.json`), JSON.stringify({ seconds: 12.3, at: '2026-01-02T00:00:00Z' }));
  fs.writeFileSync(path.join(speaker, 'transform.mllr'), '1\n1\n39\n1 0 0\n');
  fs.writeFileSync(path.join(speaker, 'means'), Buffer.from([9, 9, 9]));
  // Written before corrections were told apart: no corrected_seconds.
  fs.writeFileSync(path.join(speaker, 'state.json'), JSON.stringify({ recordings: 1, seconds: 12.3, updated_at: '2026-01-02T00:00:00Z' }));
  fs.mkdirSync(path.join(speaker, '.work-abc'));
  // A merged speaker's leftovers, and the expanded training model the folder also keeps.
  fs.mkdirSync(path.join(root, 'adaptation', PROJECT, GONE), { recursive: true });
  fs.writeFileSync(path.join(root, 'adaptation', PROJECT, GONE, 'transform.mllr'), 'old');
  fs.mkdirSync(path.join(root, 'adaptation', 'sphinxtrain-model'), { recursive: true });
  fs.writeFileSync(path.join(root, 'adaptation', 'sphinxtrain-model', 'means'), 'model');
  const blobs = new FolderBlobStore(root);
  const files = new StoredFiles(blobs, new DataLayout(root));
  const store = new SqlAdaptationStore(new SqliteSql(db));
  const live = async (projectId: string) => new Set(projectId === PROJECT ? [SPEAKER] : []);
  const move = () => moveLegacyAdaptation(path.join(root, 'adaptation'), store, (key, file) => files.storeFile(key, file), live, () => {});
  return { root, speaker, blobs, store, live, move };
}

describe('moveLegacyAdaptation (a desktop data folder from before)', () => {
  it('moves a speaker’s files onto the store and its state into the database, once, without estimating again', async () => {
    const { root, speaker, blobs, store, live, move } = legacyDataFolder();
    expect(await move()).toBe(1);
    const stored = (await store.get(SPEAKER))!;
    expect(stored.version).toBe(1);
    expect(stored.state.summary).toEqual({ recordings: 1, seconds: 12.3, corrected_seconds: 0, map_means: true, updated_at: '2026-01-02T00:00:00Z' });
    expect(stored.state.recordings).toEqual([expect.objectContaining({ id: SESSION, seconds: 12.3, files: ['gauden_counts'] })]);
    // The same bytes under the new keys.
    expect((await blobs.get(stored.state.transform!))!.toString()).toBe('1\n1\n39\n1 0 0\n');
    expect([...(await blobs.get(stored.state.means!))!]).toEqual([9, 9, 9]);
    expect([...(await blobs.get(stored.state.recordings[0]!.prefix + 'gauden_counts'))!]).toEqual([1, 2, 3, 4]);
    // The old files are gone, the gone speaker's too; the training model stays.
    expect(fs.readdirSync(speaker)).toEqual([stored.state.transform!.split('/')[3]]);
    expect(fs.existsSync(path.join(root, 'adaptation', PROJECT, GONE))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'adaptation', 'sphinxtrain-model', 'means'), 'utf8')).toBe('model');
    // A second start finds nothing to move; the start-up sweep keeps every named object and the model.
    expect(await move()).toBe(0);
    expect(await sweepAdaptation(blobs, store, live, { graceMs: 0 })).toBe(0);
    for (const key of stateKeys(stored.state)) expect(await blobs.stat(key)).not.toBeNull();
    expect(fs.existsSync(path.join(root, 'adaptation', 'sphinxtrain-model', 'means'))).toBe(true);
  });

  it('sweeps what no state names only once older than the grace', async () => {
    const { blobs, store, live, move } = legacyDataFolder();
    await move();
    const stored = (await store.get(SPEAKER))!;
    const stray = `adaptation/${PROJECT}/${SPEAKER}/v2-0123abcd/transform.mllr`;
    await blobs.put(stray, 'a crashed estimate');
    expect(await sweepAdaptation(blobs, store, live, { graceMs: 60 * 60 * 1000 })).toBe(0);
    expect(await sweepAdaptation(blobs, store, live, { graceMs: 60 * 60 * 1000, now: Date.now() + 2 * 60 * 60 * 1000 })).toBe(1);
    expect(await blobs.stat(stray)).toBeNull();
    for (const key of stateKeys(stored.state)) expect(await blobs.stat(key)).not.toBeNull();
  });
});
