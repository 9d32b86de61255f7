import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/service/storage/database';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { SqlDubStore, type PlannedLine } from '../../src/service/storage/dub-store';
import { DataLayout } from '../../src/service/storage/files';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { StoredFiles } from '../../src/service/storage/stored-files';
import { DubFiles, dubKeys, sweepDubFiles } from '../../src/service/dubbing/dub-files';
import { insertSessions } from '../helpers/sql-backends';
import { tempDir } from '../helpers/temp';

const HOUR = 60 * 60 * 1000;
const plan: PlannedLine[] = [{ lineId: 1, speaker: 'S1', text: 'One', voice: 'flite/rms', start: 0, end: 1, originalStart: 0, originalEnd: 1, nextStart: 2, previousEnd: 0, speed: null }];

let db: Db | null = null;
afterEach(() => {
  db?.close();
  db = null;
});

describe('the sweep of dub files (on blob keys)', () => {
  it('removes only what no row owns, and in team mode only what is older than the grace period', async () => {
    const root = tempDir('takeline-dub-sweep-');
    db = openDatabase(path.join(root, 'takeline.db'));
    const sql = new SqliteSql(db);
    const store = new SqlDubStore(sql);
    const [session, other] = [crypto.randomUUID(), crypto.randomUUID()];
    await insertSessions(sql, [session, other]);
    const dub = crypto.randomUUID();
    await store.insertDub(
      { id: dub, sessionId: session, name: 'd', fileName: 'd.wav', status: 'ready', sampleRate: 48000, channels: 2, sampleFormat: 's24', frames: 48000, background: true, defaultVoice: null, voices: {} },
      'r0001.wav',
    );
    const [running, finished] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of [running, finished]) await store.insertRevoice({ id, dubId: dub, jobId: crypto.randomUUID(), baseRevision: 1, plan });
    await store.setRevoiceStatus(running, 'running');
    await store.setRevoiceStatus(finished, 'failed', { error: 'cancelled' });

    const blobs = new FolderBlobStore(root);
    const layout = new DataLayout(root);
    const files = new DubFiles(new StoredFiles(blobs, layout), layout);
    const now = Date.now();
    const put = async (key: string, ageMs: number) => {
      await blobs.put(key, key);
      const at = new Date(now - ageMs);
      fs.utimesSync(path.join(root, key), at, at);
    };
    const prefix = dubKeys.prefix(session, dub);
    const [lostOld, lostNew] = [crypto.randomUUID(), crypto.randomUUID()];
    const [take, removedTake] = [crypto.randomUUID(), crypto.randomUUID()];
    await store.insertTakes(dub, 1, [{ id: take, jobId: crypto.randomUUID(), voice: 'flite/rms', speed: null, plan: plan[0]!, baseRevision: 1 }]);
    const kept = [
      `${prefix}revisions/r0001.wav`,
      `${prefix}background.wav`,
      `${prefix}peaks/r0001.json`,
      `${prefix}takes/${take}.patch`,
      `${prefix}takes/${take}.wav`,
      `${prefix}work/${running}/line-1.patch`,
    ];
    for (const key of kept) await put(key, 2 * HOUR);
    // A revision a node stored a minute ago, whose row is about to commit.
    const fresh = `${prefix}revisions/r0003.wav`;
    await put(fresh, 60_000);
    // A dub upload on another node, its row not yet committed.
    await put(dubKeys.revision(session, lostNew, 'r0001.wav'), 60_000);
    await put(dubKeys.background(session, lostNew), 3 * HOUR);
    const orphans = [
      `${prefix}revisions/r0002.wav`, // a revoice killed between storing its revision and its commit
      `${prefix}work/${finished}/line-1.patch`, // rendered lines of a revoice no longer running
      `${prefix}.r0002.wav.1a2b3c4d.tmp`, // an older version's temporary file
      `${prefix}takes/${removedTake}.patch`, // a take whose row was removed, its files not yet (a crash between)
      `${prefix}takes/${removedTake}.wav`,
      dubKeys.revision(session, lostOld, 'r0001.wav'), // a dub upload cut short
      dubKeys.revision(other, dub, 'r0001.wav'), // the dub's id under a recording it does not belong to
    ];
    for (const key of orphans) await put(key, 2 * HOUR);

    const teamRemoved = await sweepDubFiles(files, store, { now, graceMs: HOUR });
    expect(teamRemoved).toBe(orphans.length);
    const left = (await blobs.list('recordings/')).sort();
    expect(left).toEqual([...kept, fresh, dubKeys.revision(session, lostNew, 'r0001.wav'), dubKeys.background(session, lostNew)].sort());
    // A folder store's folders go with their files.
    expect(fs.existsSync(path.join(root, dubKeys.work(session, dub, finished)))).toBe(false);
    expect(fs.existsSync(path.join(root, dubKeys.prefix(session, lostOld)))).toBe(false);

    // The embedded service, alone with its data folder, sweeps without waiting.
    expect(await sweepDubFiles(files, store, { now })).toBe(3);
    expect((await blobs.list('recordings/')).sort()).toEqual([...kept].sort());
    // Swept again, nothing is left to remove.
    expect(await sweepDubFiles(files, store, { now })).toBe(0);
  });
});
