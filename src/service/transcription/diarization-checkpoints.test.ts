import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../storage/database';
import type { DiarizationResult, Diarizer, Span } from '../speech/types';
import { SqlChunkCheckpointStore } from '../storage/chunk-checkpoint-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { storedDiarizationCheckpoints } from './chunk-checkpoints';

class TestCheckpoints extends SqlChunkCheckpointStore {
  constructor(db: Db) {
    super(new SqliteSql(db));
  }

  diarization(sessionId: string, context: string) {
    return storedDiarizationCheckpoints(this, sessionId, context);
  }
}
import { checkpointedDiarizer, checkpointedRefiner } from './diarization-checkpoints';

function withSession() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'queued')").run();
  return db;
}

const result: DiarizationResult = {
  turns: [
    { start: 0, end: 1.5, speaker: 'S1' },
    { start: 1.5, end: 3, speaker: 'S2' },
  ],
  profiles: { S1: [0.25, -1], S2: [0.5, 2] },
};

function countingDiarizer(): Diarizer & { calls: number } {
  const d = {
    concurrent: true,
    calls: 0,
    async diarize() {
      d.calls++;
      return result;
    },
  };
  return d;
}

describe('diarization checkpoints', () => {
  it('diarizes once: a resumed run takes the result from the checkpoint', async () => {
    const store = new TestCheckpoints(withSession());
    const first = countingDiarizer();
    const run1 = checkpointedDiarizer(first, store.diarization('s', '[null,null]'));
    expect(run1.concurrent).toBe(true);
    expect(await run1.diarize(new Float32Array(10), [{ start: 0, end: 3 }])).toEqual(result);
    expect(await store.stages('s')).toEqual(['diarization']);

    // The process died before the transcript was stored; the next run does not diarize again.
    const second = countingDiarizer();
    const run2 = checkpointedDiarizer(second, store.diarization('s', '[null,null]'));
    expect(await run2.diarize(new Float32Array(10), [{ start: 0, end: 3 }])).toEqual(result);
    expect([first.calls, second.calls]).toEqual([1, 0]);

    // Other speaker-count hints diarize again.
    const third = countingDiarizer();
    await checkpointedDiarizer(third, store.diarization('s', '[2,2]')).diarize(new Float32Array(10), []);
    expect(third.calls).toBe(1);
  });

  it('keeps nothing from a diarization that was stopped', async () => {
    const store = new TestCheckpoints(withSession());
    const controller = new AbortController();
    const stopping: Diarizer = {
      async diarize() {
        controller.abort(new Error('stopping'));
        return result;
      },
    };
    await checkpointedDiarizer(stopping, store.diarization('s', 'c')).diarize(new Float32Array(10), [], { signal: controller.signal });
    const spans = checkpointedRefiner(async () => [{ start: 1, end: 2 }], store.diarization('s', 'c'));
    await spans(new Float32Array(10), [], controller.signal);
    expect(await store.stages('s')).toEqual([]);
  });

  it('finds diarization speech once and says when it is kept, found now or before', async () => {
    const store = new TestCheckpoints(withSession());
    const found: Span[] = [{ start: 0.5, end: 2.25 }];
    let passes = 0;
    let kept = 0;
    const refine = async () => {
      passes++;
      return found;
    };
    expect(await checkpointedRefiner(refine, store.diarization('s', 'c'), () => kept++)(new Float32Array(10), [])).toEqual(found);
    expect(await checkpointedRefiner(refine, store.diarization('s', 'c'), () => kept++)(new Float32Array(10), [])).toEqual(found);
    expect({ passes, kept }).toEqual({ passes: 1, kept: 2 });
  });

  it('forgets the steps with the chunks, and when the session goes', async () => {
    const db = withSession();
    const store = new TestCheckpoints(db);
    await store.diarization('s', 'c').saveSpeech([{ start: 0, end: 1 }]);
    await store.diarization('s', 'c').saveResult(result);
    expect(await store.stages('s')).toEqual(['diarization-speech', 'diarization']);
    await store.discard('s');
    expect(await store.stages('s')).toEqual([]);
    await store.diarization('s', 'c').saveResult(result);
    db.prepare("DELETE FROM sessions WHERE id = 's'").run();
    expect(db.prepare('SELECT count(*) AS n FROM transcription_stage_checkpoints').get()).toEqual({ n: 0 });
  });
});
