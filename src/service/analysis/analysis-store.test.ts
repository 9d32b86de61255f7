import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { AnalysisStore } from './analysis-store';

function setup() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  for (const id of ['a', 'b']) {
    db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES (?, 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'complete')").run(id);
  }
  return db;
}

describe('AnalysisStore revisions', () => {
  it("grow with every write to a session's runs and leave other sessions' alone", () => {
    const db = setup();
    const store = new AnalysisStore(db);
    const a0 = store.revision('a');
    const b0 = store.revision('b');
    const run = store.create('a', 1, 'v');
    const seen = [store.revision('a')];
    store.markRunning(run.run_id);
    seen.push(store.revision('a'));
    store.progress(run.run_id, 'prosody', 0.5);
    seen.push(store.revision('a'));
    store.savePart(run.run_id, 'conditions', { ok: true });
    seen.push(store.revision('a'));
    store.saveLines(run.run_id, []);
    seen.push(store.revision('a'));
    store.finish(run.run_id, 'complete', null);
    seen.push(store.revision('a'));
    expect(seen.every((r, i) => r > (i === 0 ? a0 : seen[i - 1]!))).toBe(true);
    expect(store.revision('b')).toBe(b0);
    // Start-up recovery may touch any session's runs.
    const before = [store.revision('a'), store.revision('b')];
    store.recoverInterrupted();
    expect(store.revision('a')).toBeGreaterThan(before[0]!);
    expect(store.revision('b')).toBeGreaterThan(before[1]!);
  });

  it('finds the session of a run it did not create (a run from before a restart)', () => {
    const db = setup();
    const run = new AnalysisStore(db).create('b', 1, 'v');
    const restarted = new AnalysisStore(db);
    const b0 = restarted.revision('b');
    restarted.requeue(run.run_id);
    expect(restarted.revision('b')).toBeGreaterThan(b0);
    expect(restarted.revision('a')).toBe(0);
  });
});
