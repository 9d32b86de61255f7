import { expect, it } from 'vitest';
import { SqlScriptAlignCheckpointStore, type KeptStretch } from '../../src/service/storage/script-align-checkpoint-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import { eachBackend, insertSessions } from '../helpers/sql-backends';

const sessions = (sql: Sql, ...ids: string[]) => insertSessions(sql, ids, { status: 'complete' });

const stretch = (from: number, to: number, start: number, end: number, words: KeptStretch['words'] = [{ word: `w${from}`, start, end: start + 0.4, confidence: 0.875 }]): KeptStretch => ({ from, to, start, end, words });

// The script alignment checkpoints' contract, the same on SQLite and PostgreSQL.
eachBackend('ScriptAlignCheckpointStore', (backend) => {
  const store = () => new SqlScriptAlignCheckpointStore(backend().sql);

  it('keeps stretches by session and context, in script order, with times to the millisecond and failed ones as null', async () => {
    await sessions(backend().sql, 's', 't');
    const checkpoints = store();
    expect(await checkpoints.kept('s', 'ctx')).toEqual([]);
    await checkpoints.save('s', 'ctx', stretch(40, 70, 29.9549, 61.25));
    await checkpoints.save('s', 'ctx', stretch(0, 40, 0, 29.9549, null));
    await checkpoints.save('s', 'other', stretch(0, 40, 0, 29.9549));
    expect(await checkpoints.kept('s', 'ctx')).toEqual([stretch(0, 40, 0, 29.955, null), { ...stretch(40, 70, 29.9549, 61.25), start: 29.955 }]);
    expect(await checkpoints.kept('t', 'ctx')).toEqual([]);
    expect(await checkpoints.count('s')).toBe(3);
    expect(await checkpoints.count('t')).toBe(0);
  });

  it('replaces a stretch saved again (the same first word), and keeps stretches saved together', async () => {
    await sessions(backend().sql, 's');
    const checkpoints = store();
    await checkpoints.save('s', 'ctx', stretch(0, 10, 0, 8));
    await checkpoints.save('s', 'ctx', stretch(0, 12, 0, 9, null));
    expect(await checkpoints.kept('s', 'ctx')).toEqual([stretch(0, 12, 0, 9, null)]);
    const many = Array.from({ length: 12 }, (_, i) => stretch(12 + i * 10, 22 + i * 10, 9 + i * 8, 17 + i * 8));
    await Promise.all(many.map((s) => checkpoints.save('s', 'ctx', s)));
    expect(await checkpoints.kept('s', 'ctx')).toEqual([stretch(0, 12, 0, 9, null), ...many]);
    expect(await checkpoints.count('s')).toBe(13);
  });

  it("discards another alignment's stretches, one session's, and forgets them when the session is deleted", async () => {
    const { sql } = backend();
    await sessions(sql, 's', 't');
    const checkpoints = store();
    for (const id of ['s', 't']) {
      await checkpoints.save(id, 'old', stretch(0, 10, 0, 8));
      await checkpoints.save(id, 'new', stretch(0, 10, 0, 8));
    }
    await checkpoints.discardOthers('s', 'new');
    expect(await checkpoints.kept('s', 'old')).toEqual([]);
    expect(await checkpoints.kept('s', 'new')).toHaveLength(1);
    expect(await checkpoints.count('t')).toBe(2);
    await checkpoints.discard('s');
    expect(await checkpoints.count('s')).toBe(0);
    expect(await checkpoints.count('t')).toBe(2);
    await sql.run("DELETE FROM sessions WHERE id = 't'");
    expect(await checkpoints.count('t')).toBe(0);
    // Nothing is kept for a recording that does not exist.
    await expect(checkpoints.save('gone', 'ctx', stretch(0, 10, 0, 8))).rejects.toThrow();
  });
});
