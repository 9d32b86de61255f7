import { expect, it } from 'vitest';
import type { RecognizedSegment } from '../../src/service/speech/types';
import { SqlChunkCheckpointStore } from '../../src/service/storage/chunk-checkpoint-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import { eachBackend, insertSessions } from '../helpers/sql-backends';

const sessions = (sql: Sql, ...ids: string[]) => insertSessions(sql, ids, { status: 'running' });

const segment = (start: number, text: string): RecognizedSegment => ({
  start,
  end: start + 1.5,
  text,
  words: [{ word: text, start, end: start + 1.5, confidence: 0.75 }],
  avgLogprob: -0.25,
});

// The transcription checkpoints' contract, the same on SQLite and PostgreSQL.
eachBackend('ChunkCheckpointStore', (backend) => {
  const store = () => new SqlChunkCheckpointStore(backend().sql);

  it('keeps a chunk by session, context, start (to the millisecond) and length', async () => {
    await sessions(backend().sql, 's', 't');
    const checkpoints = store();
    expect(await checkpoints.chunk('s', 'ctx', 0, 16000)).toBeNull();
    await checkpoints.saveChunk('s', 'ctx', 12.3456, 16000, [segment(12.3456, 'hello'), segment(13, 'there')]);
    expect(await checkpoints.chunk('s', 'ctx', 12.3456, 16000)).toEqual([segment(12.3456, 'hello'), segment(13, 'there')]);
    expect(await checkpoints.chunk('s', 'ctx', 12.3459, 16000)).not.toBeNull(); // the same millisecond
    expect(await checkpoints.chunk('s', 'ctx', 12.347, 16000)).toBeNull();
    expect(await checkpoints.chunk('s', 'ctx', 12.3456, 15999)).toBeNull();
    expect(await checkpoints.chunk('s', 'other', 12.3456, 16000)).toBeNull();
    expect(await checkpoints.chunk('t', 'ctx', 12.3456, 16000)).toBeNull();
    expect(await checkpoints.count('s')).toBe(1);
    expect(await checkpoints.count('t')).toBe(0);
  });

  it('replaces a chunk saved again (a resumed run that recognized it anew) and counts it once', async () => {
    await sessions(backend().sql, 's');
    const checkpoints = store();
    await checkpoints.saveChunk('s', 'ctx', 1, 8000, [segment(1, 'first')]);
    await checkpoints.saveChunk('s', 'ctx', 1, 8000, [segment(1, 'second')]);
    await checkpoints.saveChunk('s', 'ctx', 2, 8000, []);
    expect(await checkpoints.chunk('s', 'ctx', 1, 8000)).toEqual([segment(1, 'second')]);
    expect(await checkpoints.chunk('s', 'ctx', 2, 8000)).toEqual([]);
    expect(await checkpoints.count('s')).toBe(2);
  });

  it('keeps chunks saved together, as the recognizers finish them out of order', async () => {
    await sessions(backend().sql, 's');
    const checkpoints = store();
    const offsets = Array.from({ length: 12 }, (_, i) => i * 2.5);
    await Promise.all(offsets.map((offset) => checkpoints.saveChunk('s', 'ctx', offset, 40000, [segment(offset, `at ${offset}`)])));
    expect(await checkpoints.count('s')).toBe(12);
    for (const offset of offsets) expect(await checkpoints.chunk('s', 'ctx', offset, 40000)).toEqual([segment(offset, `at ${offset}`)]);
  });

  it('keeps steps by session, context and name, replacing a step saved again', async () => {
    await sessions(backend().sql, 's');
    const checkpoints = store();
    expect(await checkpoints.stage('s', 'hints', 'diarization')).toBeNull();
    await checkpoints.saveStage('s', 'hints', 'diarization-speech', [{ start: 0.5, end: 2.25 }]);
    await checkpoints.saveStage('s', 'hints', 'diarization', { turns: [], profiles: {} });
    await checkpoints.saveStage('s', 'ctx', 'chunk-plan', { chunks: [1] });
    await checkpoints.saveStage('s', 'ctx', 'chunk-plan', { chunks: [1, 2] });
    expect(await checkpoints.stage('s', 'hints', 'diarization-speech')).toEqual([{ start: 0.5, end: 2.25 }]);
    expect(await checkpoints.stage('s', 'ctx', 'chunk-plan')).toEqual({ chunks: [1, 2] });
    expect(await checkpoints.stage('s', 'other', 'chunk-plan')).toBeNull();
    expect(await checkpoints.stages('s')).toEqual(['diarization-speech', 'diarization', 'chunk-plan']);
  });

  it('discards one session’s chunks and steps, and forgets them when the session is deleted', async () => {
    const { sql } = backend();
    await sessions(sql, 's', 't');
    const checkpoints = store();
    for (const id of ['s', 't']) {
      await checkpoints.saveChunk(id, 'ctx', 0, 100, [segment(0, id)]);
      await checkpoints.saveStage(id, 'ctx', 'chunk-plan', {});
    }
    await checkpoints.discard('s');
    expect([await checkpoints.count('s'), await checkpoints.stages('s')]).toEqual([0, []]);
    expect([await checkpoints.count('t'), await checkpoints.stages('t')]).toEqual([1, ['chunk-plan']]);
    await sql.run("DELETE FROM sessions WHERE id = 't'");
    expect([await checkpoints.count('t'), await checkpoints.stages('t')]).toEqual([0, []]);
    // Nothing is kept for a session that does not exist.
    await expect(checkpoints.saveChunk('gone', 'ctx', 0, 100, [])).rejects.toThrow();
    await expect(checkpoints.saveStage('gone', 'ctx', 'chunk-plan', {})).rejects.toThrow();
  });

  it("counts a job's kept work (chunks and steps) for the job runner's restart", async () => {
    const { sql } = backend();
    await sessions(sql, 's');
    const checkpoints = store();
    await checkpoints.saveChunk('s', 'ctx', 0, 100, []);
    await checkpoints.saveChunk('s', 'ctx', 1, 100, []);
    await checkpoints.saveStage('s', 'hints', 'diarization', {});
    expect(await checkpoints.keptWork('s')).toBe(3);
    expect(await checkpoints.keptWork('other')).toBe(0);
  });
});
