import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';

/** `store=false` on `POST /v1/audio/transcriptions`: the same answer, and nothing kept. */
describe('an OpenAI-route call that asks that nothing be kept', { timeout: 1_500_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    if (svc) expect(await svc.stop()).toBe(0);
  });

  // A two-party call: several segments and two speakers, so ids, times and labels are all compared.
  const sample = () => fs.readFileSync(path.join(audioDir, 'diarization', 'sample.flac'));
  const post = (fields: Array<{ name: string; value: string }>, file = sample()) => {
    const { body, contentType } = multipartBody([
      { name: 'model', value: 'whisper-1' },
      ...fields,
      { name: 'file', file, filename: 'sample.flac' },
    ]);
    return rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
  };
  const verbose = [
    { name: 'response_format', value: 'verbose_json' },
    { name: 'timestamp_granularities[]', value: 'word' },
    { name: 'timestamp_granularities[]', value: 'segment' },
  ];
  /** What the service keeps, read from its own database and data folder. */
  const kept = () => {
    const db = new Database(path.join(svc.dataDir, 'takeline.db'), { readonly: true, fileMustExist: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      return {
        sessions: count('SELECT COUNT(*) AS n FROM sessions'),
        jobs: db.prepare('SELECT kind, session_id FROM jobs ORDER BY kind').all() as Array<{ kind: string; session_id: string }>,
        projects: (db.prepare('SELECT key FROM projects ORDER BY key').all() as Array<{ key: string }>).map((p) => p.key),
        recordings: fs.existsSync(path.join(svc.dataDir, 'recordings')) ? fs.readdirSync(path.join(svc.dataDir, 'recordings')).sort() : [],
        uploads: fs.readdirSync(path.join(svc.dataDir, 'uploads')),
      };
    } finally {
      db.close();
    }
  };

  it('answers as a kept call does and leaves no session, job, project or audio', async () => {
    const stored = await post(verbose);
    expect(stored.status).toBe(200);
    const storedId = stored.headers['x-session-id'] as string;
    expect(stored.json().session_id).toBe(storedId);
    const before = kept();
    expect(before.sessions).toBe(1);
    // A kept call leaves its analysis and speaker adaptation queued or run.
    expect(before.jobs.map((j) => j.kind)).toEqual(expect.arrayContaining(['analysis', 'speaker-adaptation']));

    const unkept = await post([...verbose, { name: 'store', value: 'false' }, { name: 'project_key', value: 'never-made' }]);
    expect(unkept.status).toBe(200);
    expect(unkept.headers['x-session-id']).toBeUndefined();
    const { session_id, ...answer } = stored.json();
    expect(session_id).toBe(storedId);
    expect(unkept.json()).toEqual(answer);
    expect(answer.segments.length).toBeGreaterThan(2);
    expect(answer.words.length).toBeGreaterThan(20);

    // The diarizer's turns are the same too.
    for (const format of ['diarized_json']) {
      const a = await post([{ name: 'response_format', value: format }]);
      const b = await post([{ name: 'response_format', value: format }, { name: 'store', value: 'false' }]);
      expect(b.status).toBe(200);
      expect(b.text()).toBe(a.text());
    }

    const after = kept();
    // One more kept call above; the unkept ones added nothing.
    expect(after.sessions).toBe(2);
    expect(after.projects).toEqual(['default']);
    expect(after.recordings.length).toBe(2);
    expect(after.uploads).toEqual([]);
    const keptIds = new Set(after.jobs.map((j) => j.session_id));
    expect(keptIds.size).toBeLessThanOrEqual(2);
    const list = (await (await fetch(`${svc.url}/v1/speech/transcriptions?limit=100`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    expect(list.data.length).toBe(2);
    expect(new Set(list.data.map((s) => s.id))).toEqual(new Set(after.recordings));
    for (const id of keptIds) expect(after.recordings).toContain(id);
  });

  it('streams the same deltas without a session', async () => {
    const stream = [{ name: 'stream', value: 'true' }];
    const a = await post(stream);
    const b = await post([...stream, { name: 'store', value: 'false' }]);
    expect(b.status).toBe(200);
    expect(b.headers['x-session-id']).toBeUndefined();
    expect(b.text()).toBe(a.text());
    expect(b.text()).toContain('transcript.text.delta');
  });

  it('refuses what is not media with the same error, and a bad value of store', async () => {
    const junk = Buffer.from('not audio at all');
    const a = await post([], junk);
    const b = await post([{ name: 'store', value: 'false' }], junk);
    expect(b.status).toBe(415);
    expect(b.json()).toEqual(a.json());
    const bad = await post([{ name: 'store', value: 'maybe' }]);
    expect(bad.status).toBe(400);
    expect(bad.json().error.param).toContain('store');
  });
});
