import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisDocument, AnalysisRunList, AnalysisRunStarted, type AnalysisSegment, type Intelligence } from '../../src/shared/schemas/analysis';
import { ANALYSIS_VERSION } from '../../src/service/analysis/stages';
import { childProcesses } from '../helpers/proc-stat';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { joinClips } from '../helpers/two-readers';

type Doc = ReturnType<typeof AnalysisDocument.parse>;

/** A line is either as measured (nothing listened yet) or listened to in full: never a mix. */
function expectWholeLine(s: AnalysisSegment): void {
  if (s.perception === null) {
    expect(s.delivery).toBeNull();
    expect(s.emphasis).toEqual([]);
  } else {
    expect(s.delivery).not.toBeNull();
    expect(s.perception.start).toBe(s.start);
    expect(s.perception.end).toBe(s.end);
  }
}

/** The measured part of a line (what the quality stage published). */
const measuredPart = (s: AnalysisSegment) => ({ ...s, perception: null, delivery: null, emphasis: [] });

const unit = (x: number) => {
  expect(x).toBeGreaterThanOrEqual(0);
  expect(x).toBeLessThanOrEqual(1);
};

/** Every field of the analysis document present, of the right type and in a plausible range. */
function expectListened(intel: Intelligence): void {
  const ids = new Set(intel.segments.map((s) => s.id));
  for (const s of intel.segments) {
    const p = s.perception!;
    expect(p).not.toBeNull();
    expect(p.source).toBe('estimate'); // no emotion model is installed: nothing may claim `heard`
    for (const x of [p.intensity, p.arousal, p.confidence, p.engagement, p.take_quality]) unit(x);
    expect(p.valence).toBeGreaterThanOrEqual(-1);
    expect(p.valence).toBeLessThanOrEqual(1);
    expect(p.note).toMatch(/\w.*\.$/);
    expect(p.audio_issues).toEqual([...new Set(s.quality.issues.map((i) => i.type))]);
    expect(p.emphasis).toEqual(s.emphasis.map((e) => e.word));
    unit(s.delivery!.score);
    for (const f of s.delivery!.flags) expect(['estimate', 'measured', 'located']).toContain(f.source);
    expect(s.delivery!.flags.filter((f) => f.source === 'estimate').map((f) => f.type)).toEqual(p.delivery);
    for (const e of s.emphasis) {
      expect(e.start).toBeGreaterThanOrEqual(s.start - 0.05);
      expect(e.end).toBeLessThanOrEqual(s.end + 0.05);
      expect(e.strength).toBeGreaterThan(0.3);
      expect(e.strength).toBeLessThanOrEqual(1);
      expect(e.source).toBe('estimate');
    }
  }
  const speakers = [...new Set(intel.segments.map((s) => s.speaker))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  expect(Object.keys(intel.speakers).sort()).toEqual([...speakers].sort());
  for (const [speaker, prof] of Object.entries(intel.speakers)) {
    const own = intel.segments.filter((s) => s.speaker === speaker);
    expect(prof.talk_seconds).toBeGreaterThan(0);
    expect(prof.talk_seconds).toBeLessThanOrEqual(intel.duration);
    expect(prof.turns).toBeGreaterThanOrEqual(1);
    expect(prof.turns).toBeLessThanOrEqual(own.length);
    expect(prof.hesitations).toBe(own.reduce((n, s) => n + s.prosody.hesitations, 0));
    expect(prof.trajectory.map((t) => t.segment_id)).toEqual(own.map((s) => s.id));
    for (const t of prof.trajectory) {
      expect(t.t).toBeGreaterThanOrEqual(t.start);
      expect(t.t).toBeLessThanOrEqual(t.end);
      expect(t.energy_db).toBeLessThan(0);
      for (const x of [t.arousal, t.confidence, t.engagement, t.score]) unit(x);
    }
    for (const x of [prof.confidence, prof.engagement, prof.arousal]) unit(x);
    expect(Object.values(prof.emotions).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    for (const n of Object.values(prof.delivery_labels)) expect(Number.isInteger(n)).toBe(true);
    expect(prof.articulation_rate).toBeGreaterThan(2);
    expect(prof.articulation_rate).toBeLessThan(10);
    expect(prof.pitch_hz).toBe(intel.baselines[speaker]!.pitch_hz);
    expect(prof.pitch_range_st).toBeGreaterThan(0);
    expect(prof.fillers_per_minute).toBeGreaterThanOrEqual(0);
    expect(prof.reactions).toEqual({}); // read speech: no audience
    expect(prof.summary).toMatch(new RegExp(`^${speaker} speaks for \\d+:\\d\\d in \\d+ turns?`));
  }
  expect(new Set(intel.moments.map((m) => m.id)).size).toBe(intel.moments.length);
  for (const m of intel.moments) {
    expect(m.start).toBeLessThan(m.end);
    expect(m.end).toBeLessThanOrEqual(intel.duration + 0.01);
    unit(m.score);
    expect(m.reason).toMatch(/\w/);
    for (const id of m.segment_ids) expect(ids.has(id)).toBe(true);
    if (m.type === 'select') {
      expect(m.text).toMatch(/\w/);
      expect(typeof m.sentence_complete).toBe('boolean');
    }
  }
  // Every speaker with good lines gets a select.
  expect(intel.moments.some((m) => m.type === 'select')).toBe(true);
  expect(intel.summary.overview).toMatch(new RegExp(`^\\d+:\\d\\d recording with ${speakers.length} speakers? over ${intel.segments.length} lines`));
  expect(intel.summary.speakers.map((s) => s.speaker)).toEqual(speakers);
  for (const s of intel.summary.speakers) expect(s.summary).toBe(intel.speakers[s.speaker]!.summary);
  expect(intel.summary.watch_outs).toEqual(intel.summary.watch_out_items.map((w) => w.text));
  for (const w of intel.summary.watch_out_items) {
    expect(w.ranges.length).toBeGreaterThan(0);
    for (const r of w.ranges) expect(r.end).toBeGreaterThanOrEqual(r.start);
  }
  expect(intel.warnings.some((w) => /No speech-emotion model is installed/.test(w))).toBe(true);
}

/** Just under a minute of read speech, 8 lines from two readers (LJSpeech and the amateur desk-mic readings). */
function readingsFile(dir: string): string {
  const clips = ['ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0035', 'ljspeech_LJ001-0004', 'amateur_LJ001-0049', 'ljspeech_LJ001-0006', 'amateur_LJ001-0058'];
  return joinClips(dir, 'readings.flac', clips);
}

describe('audio-intelligence analysis', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  const tmp = tempDir('takeline-analysis-');
  const file = readingsFile(tmp);

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const upload = async (url: string, bytes: Buffer, name: string) => {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'analysis' },
      { name: 'file', file: bytes, filename: name },
    ]);
    const res = await rawRequest(`${url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    return res.json().id as string;
  };
  const doc = async (url: string, id: string, query = ''): Promise<Doc> => {
    const res = await fetch(`${url}/v1/speech/transcriptions/${id}/intelligence${query}`, { headers: auth });
    expect(res.status).toBe(200);
    return AnalysisDocument.parse(await res.json());
  };
  /** Polls until `done` holds, keeping every document seen. */
  const poll = async (url: string, id: string, done: (d: Doc) => boolean, every = 150, limit = 400_000) => {
    const seen: Doc[] = [];
    const until = Date.now() + limit;
    for (;;) {
      const d = await doc(url, id);
      seen.push(d);
      if (done(d) || Date.now() > until) return seen;
      await new Promise((r) => setTimeout(r, every));
    }
  };
  const settled = (d: Doc) => ['complete', 'failed', 'unavailable'].includes(d.intelligence.status);

  let sessionId = '';
  let first: Doc;

  it('queues itself when the transcript completes and fills the document in progressively', async () => {
    sessionId = await upload(svc.url, fs.readFileSync(file), 'readings.flac');
    const early = await doc(svc.url, sessionId);
    expect(early.intelligence.status).toBe('none');
    expect(early.intelligence.stage).toMatch(/awaiting_transcript|none/);
    const notYet = await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence`, { method: 'POST', headers: auth });
    if (notYet.status === 409) expect(notYet.json().detail).toMatch(/transcript is not complete/);

    const seen = await poll(svc.url, sessionId, settled);
    first = seen.at(-1)!;
    const intel = first.intelligence;
    expect(intel.status).toBe('complete');
    // Progress never went backwards, and some poll saw a running run with part of the lines.
    const progress = seen.filter((d) => d.intelligence.run_id === intel.run_id).map((d) => d.intelligence.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const partial = seen.filter((d) => d.intelligence.status === 'running' && d.intelligence.segments.length > 0 && d.intelligence.segments.length < d.intelligence.coverage.segments);
    expect(partial.length).toBeGreaterThan(0);
    for (const d of partial) for (const s of d.intelligence.segments) expect(s.quality.score).toBeGreaterThanOrEqual(0);
    // Every poll: whole lines only; recording-level results only once their stage has run.
    for (const d of seen) {
      for (const s of d.intelligence.segments) expectWholeLine(s);
      const i = d.intelligence;
      if (i.status === 'running' && ['decoding', 'speech', 'events', 'conditions', 'prosody', 'baselines', 'quality', 'listening'].includes(i.stage)) {
        expect(i.speakers).toEqual({});
        expect(i.moments).toEqual([]);
        expect(i.summary.overview).toBe('');
      }
    }

    expect(intel.progress).toBe(1);
    expect(intel.stage).toBe('complete');
    expect(intel.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(intel.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    expect(intel.timings.total).toBeGreaterThan(0);
    expect(Object.keys(intel.timings.stages)).toEqual(expect.arrayContaining(['decoding', 'prosody', 'quality', 'listening', 'speakers', 'moments', 'summary']));
    expect(intel.version).toBe(ANALYSIS_VERSION);
    expect(intel.duration).toBeGreaterThan(50);
    expect(intel.segments.length).toBe(intel.coverage.segments);
    expect(intel.coverage.measured).toBe(intel.segments.length);
    expect(intel.coverage.listened).toBe(intel.segments.length); // DNSMOS is installed in tests
    for (const s of intel.segments) {
      expect(s.speech_start).toBeGreaterThanOrEqual(s.start - 1e-6);
      expect(s.speech_end).toBeLessThanOrEqual(s.end + 1e-6);
      expect(s.prosody.pitch_hz).toBeGreaterThan(70);
      expect(s.prosody.pitch_hz).toBeLessThan(400);
      expect(s.prosody.energy_db).toBeLessThan(0);
      expect(s.prosody.energy_db).toBeGreaterThan(-60);
      expect(s.prosody.voiced_ratio).toBeGreaterThan(0.2);
      expect(s.prosody.hnr_db).toBeGreaterThan(0);
      expect(s.prosody.pitch_perturbation).toBeGreaterThan(0);
      expect(s.prosody.pitch_perturbation).toBeLessThan(0.1);
      if (s.prosody.articulation_rate !== null) {
        expect(s.prosody.articulation_rate).toBeGreaterThan(2);
        expect(s.prosody.articulation_rate).toBeLessThan(10);
      }
      expect(s.quality.mos).not.toBeNull();
      expect(s.quality.sources).toEqual(['measured', 'heard']);
      expect(s.quality.score).toBeGreaterThan(0);
      expect(s.quality.score).toBeLessThanOrEqual(1);
    }
    expectListened(intel);
    for (const speaker of new Set(intel.segments.map((s) => s.speaker))) {
      expect(intel.baselines[speaker]).toBeDefined();
      expect(intel.baselines[speaker]!.pitch_hz).toBeGreaterThan(70);
    }
    expect(first.project.key).toBe('analysis');
  });

  it('starts a new run on demand, returns the active one instead of a duplicate, and lists the runs', async () => {
    const started = await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence`, { method: 'POST', headers: auth });
    expect(started.status).toBe(202);
    const run = AnalysisRunStarted.parse(started.json());
    expect(run.created).toBe(true);
    expect(run.run_id).not.toBe(first.intelligence.run_id);
    expect(started.headers.location).toContain(`run_id=${run.run_id}`);
    const again = AnalysisRunStarted.parse((await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence`, { method: 'POST', headers: auth })).json());
    expect(again).toMatchObject({ run_id: run.run_id, created: false });
    const seen = await poll(svc.url, sessionId, settled);
    expect(seen.at(-1)!.intelligence).toMatchObject({ run_id: run.run_id, status: 'complete' });
    const runs = AnalysisRunList.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence/runs`, { headers: auth })).json());
    expect(runs.data.map((r) => r.run_id)).toEqual([run.run_id, first.intelligence.run_id]);
    // The earlier run's document stays readable, and the measures are deterministic.
    const earlier = await doc(svc.url, sessionId, `?run_id=${first.intelligence.run_id}`);
    expect(earlier.intelligence.segments).toEqual(first.intelligence.segments);
    expect(seen.at(-1)!.intelligence.segments.map((s) => s.prosody)).toEqual(first.intelligence.segments.map((s) => s.prosody));
  });

  it('answers bad input with the validation shape', async () => {
    const bad = await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence?run_id=nope`, { headers: auth });
    expect(bad.status).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['query', 'run_id']);
    const unknown = await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence?run_id=${crypto.randomUUID()}`, { headers: auth });
    expect(unknown.status).toBe(404);
    const noSession = await rawRequest(`${svc.url}/v1/speech/transcriptions/${crypto.randomUUID()}/intelligence`, { method: 'POST', headers: auth });
    expect(noSession.status).toBe(404);
  });

  it('keeps the last complete document when a re-run fails, and says why', async () => {
    const folder = path.join(svc.dataDir, 'recordings', sessionId);
    const original = fs.readdirSync(folder).find((f) => f.startsWith('original'))!;
    const saved = fs.readFileSync(path.join(folder, original));
    fs.writeFileSync(path.join(folder, original), Buffer.alloc(0));
    try {
      const started = AnalysisRunStarted.parse((await rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/intelligence`, { method: 'POST', headers: auth })).json());
      const seen = await poll(svc.url, sessionId, (d) => d.intelligence.last_failure !== null || d.intelligence.status === 'failed');
      const last = seen.at(-1)!.intelligence;
      expect(last.status).toBe('complete');
      expect(last.last_failure).toMatchObject({ run_id: started.run_id, error: expect.any(String) });
      expect(last.segments.length).toBe(first.intelligence.segments.length);
      const failed = await doc(svc.url, sessionId, `?run_id=${started.run_id}`);
      expect(failed.intelligence.status).toBe('failed');
      expect(failed.intelligence.error).toMatch(/\w/);
    } finally {
      fs.writeFileSync(path.join(folder, original), saved);
    }
  });

  it('calls a recording without speech unavailable', async () => {
    const silence = path.join(tmp, 'silence.flac');
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '4', silence]);
    const id = await upload(svc.url, fs.readFileSync(silence), 'silence.flac');
    const seen = await poll(svc.url, id, settled);
    expect(seen.at(-1)!.intelligence).toMatchObject({ status: 'unavailable', segments: [], error: expect.stringMatching(/no speech/) });
  });
});

describe('analysis durability', { timeout: 600_000 }, () => {
  it('a recording deleted during its analysis ends the analysis and nothing else', async () => {
    const tmp = tempDir('takeline-analysis-delete-');
    const svc = await startServiceProcess();
    try {
      const auth = { Authorization: `Bearer ${svc.key}` };
      const { body, contentType } = multipartBody([
        { name: 'project_key', value: 'delete' },
        { name: 'file', file: fs.readFileSync(readingsFile(tmp)), filename: 'r.flac' },
      ]);
      const id = (await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id as string;
      const analysisProcesses = () => childProcesses(svc.child.pid!).filter((c) => c.name === 'node' && c.state !== 'Z');
      // Wait until the analysis is inside its model inference (lines being listened to).
      let running = false;
      for (let i = 0; i < 4000 && !running; i++) {
        const d = AnalysisDocument.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence`, { headers: auth })).json());
        if (d.intelligence.status === 'complete') throw new Error('the run finished before the recording could be deleted');
        running = d.intelligence.status === 'running' && analysisProcesses().length === 1;
        if (!running) await new Promise((r) => setTimeout(r, 50));
      }
      expect(running).toBe(true);
      expect((await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
      for (let i = 0; i < 100 && analysisProcesses().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(analysisProcesses()).toEqual([]);
      // The service lives on and still serves.
      expect(svc.child.exitCode).toBeNull();
      expect((await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${svc.url}/v1/speech/transcriptions`, { headers: auth })).status).toBe(200);
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  });

  it('resumes a run killed mid-way: nothing acknowledged is lost, nothing is duplicated', async () => {
    const tmp = tempDir('takeline-analysis-kill-');
    const file = readingsFile(tmp);
    const first = await startServiceProcess();
    const auth = { Authorization: `Bearer ${first.key}` };
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'kill' },
      { name: 'file', file: fs.readFileSync(file), filename: 'r.flac' },
    ]);
    const id = (await rawRequest(`${first.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id as string;
    const get = async (url: string) => AnalysisDocument.parse(await (await fetch(`${url}/v1/speech/transcriptions/${id}/intelligence`, { headers: auth })).json());
    let before: Doc | null = null;
    for (let i = 0; i < 4000; i++) {
      const d = await get(first.url);
      if (d.intelligence.status === 'running' && d.intelligence.segments.length > 0 && d.intelligence.segments.length < d.intelligence.coverage.segments) {
        before = d;
        break;
      }
      if (d.intelligence.status === 'complete') throw new Error('the run finished before it could be killed');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(before).not.toBeNull();
    await first.kill();

    const second = await startServiceProcess({ dataDir: first.dataDir });
    try {
      let after = await get(second.url);
      expect(after.intelligence.run_id).toBe(before!.intelligence.run_id);
      expect(after.intelligence.segments.length).toBeGreaterThanOrEqual(before!.intelligence.segments.length);
      for (let i = 0; i < 2400 && after.intelligence.status !== 'complete' && after.intelligence.status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        after = await get(second.url);
      }
      expect(after.intelligence.status).toBe('complete');
      expect(after.intelligence.run_id).toBe(before!.intelligence.run_id);
      const byId = new Map<number, AnalysisSegment>(after.intelligence.segments.map((s) => [s.id, s]));
      for (const s of before!.intelligence.segments) expect(measuredPart(byId.get(s.id)!)).toEqual(measuredPart(s));
      for (const s of after.intelligence.segments) expect(s.perception).not.toBeNull();
      expect(Object.keys(after.intelligence.speakers).length).toBeGreaterThan(0);
      expect(after.intelligence.segments.map((s) => s.id)).toEqual([...new Set(after.intelligence.segments.map((s) => s.id))]);
      const runs = AnalysisRunList.parse(await (await fetch(`${second.url}/v1/speech/transcriptions/${id}/intelligence/runs`, { headers: auth })).json());
      expect(runs.data).toHaveLength(1);
      expect(after.intelligence.timings.total).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
    const db = new Database(path.join(first.dataDir, 'takeline.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
