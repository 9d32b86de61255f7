import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../storage/database';
import type { RecognizedSegment, Recognizer } from '../speech/types';
import { SqlChunkCheckpointStore } from '../storage/chunk-checkpoint-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { checkpointedRecognizer, storedChunkCheckpoints } from './chunk-checkpoints';

class TestCheckpoints extends SqlChunkCheckpointStore {
  constructor(db: Db) {
    super(new SqliteSql(db));
  }

  for(sessionId: string, context: string) {
    return storedChunkCheckpoints(this, sessionId, context);
  }
}

const segment = (start: number, text: string): RecognizedSegment => ({ start, end: start + 1, text, words: [], avgLogprob: -0.1 });

function countingRecognizer(): Recognizer & { calls: number } {
  const r = {
    id: 'fake',
    calls: 0,
    async recognize(pcm: Float32Array, options?: { offset?: number }) {
      r.calls++;
      return [segment(options?.offset ?? 0, `chunk of ${pcm.length}`)];
    },
    close: async () => undefined,
  };
  return r;
}

function withSession() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'queued')").run();
  return db;
}

describe('checkpointed recognition', () => {
  it('keeps what the engine is: one that writes its own text is not written over', () => {
    const store = new TestCheckpoints(withSession());
    const whisperLike = { ...countingRecognizer(), writesText: true };
    expect(checkpointedRecognizer(whisperLike, store.for('s', 'ctx')).writesText).toBe(true);
  });

  it('recognizes each chunk once: a resumed run takes finished chunks from the checkpoints', async () => {
    const db = withSession();
    const store = new TestCheckpoints(db);
    const first = countingRecognizer();
    const run1 = checkpointedRecognizer(first, store.for('s', 'ctx'));
    expect(await run1.recognize(new Float32Array(16000), { offset: 0 })).toEqual([segment(0, 'chunk of 16000')]);
    await run1.recognize(new Float32Array(8000), { offset: 1.25 });
    expect(first.calls).toBe(2);

    // The process died here; the next run cuts the same chunks and one more.
    const second = countingRecognizer();
    let reused = 0;
    const run2 = checkpointedRecognizer(second, store.for('s', 'ctx'), () => reused++);
    expect(await run2.recognize(new Float32Array(16000), { offset: 0 })).toEqual([segment(0, 'chunk of 16000')]);
    expect(await run2.recognize(new Float32Array(8000), { offset: 1.25 })).toEqual([segment(1.25, 'chunk of 8000')]);
    await run2.recognize(new Float32Array(4000), { offset: 2 });
    expect(second.calls).toBe(1);
    expect(reused).toBe(2);
    expect(await store.count('s')).toBe(3);
  });

  it('does not reuse chunks of another context or another length, and forgets them when discarded or the session goes', async () => {
    const db = withSession();
    const store = new TestCheckpoints(db);
    await store.for('s', 'engine-a').put(0, 16000, [segment(0, 'a')]);
    expect(await store.for('s', 'engine-b').get(0, 16000)).toBeNull();
    expect(await store.for('s', 'engine-a').get(0, 15999)).toBeNull();
    expect(await store.for('s', 'engine-a').get(0.0004, 16000)).toEqual([segment(0, 'a')]);
    await store.discard('s');
    expect(await store.count('s')).toBe(0);
    await store.for('s', 'engine-a').put(0, 16000, [segment(0, 'a')]);
    db.prepare("DELETE FROM sessions WHERE id = 's'").run();
    expect(await store.count('s')).toBe(0);
  });

  it('keeps nothing from a recognition that was aborted', async () => {
    const db = withSession();
    const store = new TestCheckpoints(db);
    const controller = new AbortController();
    const inner: Recognizer = { id: 'x', recognize: async () => (controller.abort(), [segment(0, 'partial')]), close: async () => undefined };
    await checkpointedRecognizer(inner, store.for('s', 'c')).recognize(new Float32Array(10), { offset: 0, signal: controller.signal });
    expect(await store.count('s')).toBe(0);
  });
});
