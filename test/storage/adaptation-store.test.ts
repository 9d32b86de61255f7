import { expect, it } from 'vitest';
import { SqlAdaptationStore, type AdaptationState, type StoredAdaptation } from '../../src/service/storage/adaptation-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import { eachBackend } from '../helpers/sql-backends';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

async function speakers(sql: Sql): Promise<void> {
  await sql.run("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'P', '2026-01-01T00:00:00Z')");
  for (const [i, id] of [A, B].entries()) {
    await sql.run("INSERT INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES (?, 'p', ?, 'X', 'S1', '{}', '2026-01-01T00:00:00Z')", [id, i + 1]);
  }
}

function state(transform: string | null, seconds = 12.5): AdaptationState {
  return {
    recordings: [{ id: 'r1', seconds, at: '2026-01-02T00:00:00Z', prefix: `adaptation/p/${A}/v1-00000000/rec/r1/`, files: ['gauden_counts'] }],
    transform,
    means: null,
    summary: transform ? { recordings: 1, seconds, corrected_seconds: 0, map_means: false, updated_at: '2026-01-02T00:00:00Z' } : null,
  };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Each project speaker's adaptation state, shared by a team's nodes, and the per-speaker lock estimates take.
eachBackend('AdaptationStore', (backend) => {
  it('saves, replaces, lists and removes a speaker’s state', async () => {
    const { sql } = backend();
    await speakers(sql);
    const store = new SqlAdaptationStore(sql);
    expect(await store.get(A)).toBeNull();
    const first: StoredAdaptation = { speakerId: A, projectId: 'p', version: 1, state: state(null) };
    await store.save(first);
    expect(await store.get(A)).toEqual(first);
    const second: StoredAdaptation = { ...first, version: 2, state: state('adaptation/p/a/v2-00000000/transform.mllr', 20) };
    await store.save(second);
    await store.save({ speakerId: B, projectId: 'p', version: 1, state: state(null) });
    expect(await store.get(A)).toEqual(second);
    expect((await store.forProject('p')).map((s) => [s.speakerId, s.version])).toEqual([
      [A, 2],
      [B, 1],
    ]);
    expect(await store.forProject('other')).toEqual([]);
    expect((await store.all()).length).toBe(2);
    await store.remove(B);
    expect(await store.get(B)).toBeNull();
  });

  it('drops a speaker’s state with the speaker (merged or deleted)', async () => {
    const { sql } = backend();
    await speakers(sql);
    const store = new SqlAdaptationStore(sql);
    await store.save({ speakerId: A, projectId: 'p', version: 1, state: state('t') });
    await sql.run('DELETE FROM project_speakers WHERE id = ?', [A]);
    expect(await store.get(A)).toBeNull();
  });

  it('runs one speaker’s exclusive work at a time, across store instances on PostgreSQL (nodes), and other speakers’ meanwhile', async () => {
    const { sql, name } = backend();
    await speakers(sql);
    // PostgreSQL: two stores are two nodes (the lock is the database's). SQLite: the desktop has one store per process.
    const one = new SqlAdaptationStore(sql);
    const other = name === 'postgres' ? new SqlAdaptationStore(sql) : one;
    const events: string[] = [];
    const work = (label: string, speaker: string, ms: number) =>
      (label.startsWith('1') ? one : other).exclusive(speaker, async (locked) => {
        events.push(`${label} start`);
        const before = await locked.get(speaker);
        await delay(ms);
        // Each adds to what the previous committed: none is lost.
        await locked.save({ speakerId: speaker, projectId: 'p', version: (before?.version ?? 0) + 1, state: state(null) });
        events.push(`${label} end`);
        return label;
      });
    const first = work('1a', A, 300);
    while (!events.includes('1a start')) await delay(5);
    const results = await Promise.all([first, work('2a', A, 10), work('2b', B, 10)]);
    expect(results).toEqual(['1a', '2a', '2b']);
    // B did not wait for A's lock; A's second work started only after the first ended.
    expect(events.indexOf('2b end')).toBeLessThan(events.indexOf('1a end'));
    expect(events.indexOf('2a start')).toBeGreaterThan(events.indexOf('1a end'));
    expect((await one.get(A))!.version).toBe(2);
  });

  it('lets the next caller in when exclusive work throws', async () => {
    const { sql } = backend();
    await speakers(sql);
    const store = new SqlAdaptationStore(sql);
    await expect(store.exclusive(A, async () => Promise.reject(new Error('tool failed')))).rejects.toThrow('tool failed');
    expect(await Promise.race([store.exclusive(A, async () => 'next'), delay(5000).then(() => 'still locked')])).toBe('next');
  });
});
