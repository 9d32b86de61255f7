import fs from 'node:fs';
import path from 'node:path';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../../test/helpers/service';
import { inspectDatabase, integrityCheck, sha256, slowUpload, temporaryFiles, waitFor } from '../../test/helpers/crash';
import { tinyWav } from '../../test/helpers/fuzz/run-fuzz';

/**
 * kill -9 at random points during each kind of work, then a restart on the same data folder. Each kill
 * lands a random moment after the job got further than at the previous one: three kills at the same point
 * is, by design, a crash loop (the job fails for the user to retry). After each
 * restart the invariants are checked: acknowledged uploads intact (sha256), no temporary files left after
 * the start-up clean-up, `PRAGMA integrity_check` ok; at the end every job completed exactly once.
 */
export interface KillReport {
  kills: Record<string, number>;
  bytesVerified: number;
  failures: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const KILL_KINDS = ['upload', 'transcription', 'analysis', 'revoice'] as const;

/** `kinds` limits the kills to some kinds (the work of the others still runs, unkilled; analysis and revoice only when asked). */
export async function killHarness(options: { killsPerKind: number; speechFile: string; log: (line: string) => void; random: () => number; kinds?: readonly string[] }): Promise<KillReport> {
  const kinds = new Set(options.kinds ?? KILL_KINDS);
  const limit = (kind: string) => (kinds.has(kind) ? options.killsPerKind : 0);
  const report: KillReport = { kills: { upload: 0, transcription: 0, analysis: 0, revoice: 0 }, bytesVerified: 0, failures: [] };
  let svc: ServiceProcess = await startServiceProcess();
  const auth = () => ({ Authorization: `Bearer ${svc.key}` });
  const acknowledged = new Map<string, string>();
  const check = (label: string) => {
    const temp = temporaryFiles(svc.dataDir);
    if (temp.length) report.failures.push(`${label}: temporary files after restart: ${temp.join(', ')}`);
    for (const [id, digest] of acknowledged) {
      const folder = path.join(svc.dataDir, 'recordings', id);
      const original = fs.readdirSync(folder).find((f) => f.startsWith('original'));
      const file = original ? path.join(folder, original) : '';
      if (!original || sha256(file) !== digest) report.failures.push(`${label}: upload ${id} lost or changed`);
      else report.bytesVerified += fs.statSync(file).size;
    }
  };
  const restart = async (label: string) => {
    await svc.kill();
    const integrity = integrityCheck(svc.dataDir);
    if (integrity !== 'ok') report.failures.push(`${label}: integrity_check ${integrity}`);
    svc = await startServiceProcess({ dataDir: svc.dataDir });
    check(label);
  };
  const upload = async (file: Buffer, name: string, project = 'kills') => {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: project }, { name: 'file', file, filename: name }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(), 'Content-Type': contentType }, body });
    if (res.status !== 201) throw new Error(`upload ${res.status}: ${res.text()}`);
    acknowledged.set(res.json().id, sha256(file));
    return res.json().id as string;
  };
  const session = async (id: string) => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth() })).json()) as { status: string; error: string | null; progress: number };
  /**
   * Kills the service at random moments (`minMs` + up to `spreadMs` after the job got further than at the
   * previous kill) while the job `read` reports on runs, up to the kind's number of kills; then waits for
   * the job to settle and returns its last state.
   */
  const killWhileRunning = async <T extends { status: string; progress: number }>(kind: string, read: () => Promise<T>, minMs: number, spreadMs: number): Promise<T> => {
    let last = -1;
    for (let i = 0; i < limit(kind); i++) {
      const state = await waitFor(async () => {
        const s = await read();
        return s.status === 'queued' || (s.status === 'running' && s.progress <= last) ? null : s;
      }, `the ${kind} to get further`, 300_000, 50);
      if (state.status !== 'running') break;
      await sleep(minMs + spreadMs * options.random());
      const at = await read();
      if (at.status !== 'running') break;
      last = at.progress;
      await restart(`${kind} kill ${i + 1}`);
      report.kills[kind]!++;
    }
    return waitFor(async () => {
      const s = await read();
      return s.status === 'queued' || s.status === 'running' ? null : s;
    }, `the ${kind}`, 600_000, 500);
  };

  try {
    // 1. Upload streaming: cut off at a random share of the body.
    const speech = fs.readFileSync(options.speechFile);
    for (let i = 0; i < limit('upload'); i++) {
      await upload(tinyWav(1 + i), `kept-${i}.wav`);
      const { body, contentType } = multipartBody([{ name: 'project_key', value: 'kills' }, { name: 'file', file: speech, filename: 'cut.flac' }]);
      await slowUpload(svc.url, svc.key, body, contentType, Math.floor(body.length * (0.1 + 0.8 * options.random())));
      await sleep(50 + 200 * options.random());
      await restart(`upload kill ${i + 1}`);
      report.kills.upload!++;
    }

    // 2. Transcription: kill at random moments while it runs, until it completes.
    const sid = await upload(speech, 'speech.flac');
    const done = await killWhileRunning('transcription', () => session(sid), 300, 3000);
    if (done.status !== 'complete') report.failures.push(`transcription ended ${done.status}: ${done.error}`);

    options.log(`  kills: upload ${report.kills.upload}, transcription ${report.kills.transcription} (${done.status})`);
    const later = kinds.has('analysis') || kinds.has('revoice');
    let dubId: string | null = null;
    if (later) {
      // 3. Analysis of that transcript: kill while it runs, until it completes.
      const analysis = async () => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${sid}/intelligence`, { headers: auth() })).json()).intelligence as { status: string; progress: number };
      const analysed = await killWhileRunning('analysis', analysis, 200, 2000);
      if (analysed.status !== 'complete') report.failures.push(`analysis ended ${analysed.status}`);

      // 4. Revoice: a dub with lines, corrected, revoiced; kill while it runs, until it completes.
      // The port changes at each restart: build addresses when used.
      const dubsAt = () => `${svc.url}/v1/speech/transcriptions/${sid}/dubs`;
      const dubs = dubsAt();
      // Each kill needs a line voiced since the last one (two progress points per line): lines to spare.
      const lineCount = Math.max(8, 2 * options.killsPerKind + 4);
      const lines = Array.from({ length: lineCount }, (_, k) => ({ speaker: 'S1', start: k * 1.5 + 0.1, end: k * 1.5 + 1.3, text: `Line number ${k + 1}.` }));
      const dubBody = multipartBody([{ name: 'file', file: tinyWav(lineCount * 1.5 + 1), filename: 'dub.wav' }, { name: 'lines', value: JSON.stringify(lines) }]);
      const dub = (await rawRequest(dubs, { method: 'POST', headers: { ...auth(), 'Content-Type': dubBody.contentType }, body: dubBody.body })).json();
      for (let k = 1; k <= lines.length; k++) {
        await rawRequest(`${dubs}/${dub.id}/lines/${k}`, { method: 'PATCH', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ text: `Corrected line ${k}.` }) });
      }
      const started = (await rawRequest(`${dubs}/${dub.id}/revoice?wait=0`, { method: 'POST', headers: auth() })).json();
      const revoice = async () => (await (await fetch(`${dubsAt()}/${dub.id}/revoices/${started.id}`, { headers: auth() })).json()) as { status: string; progress: number; error?: string };
      const voiced = await killWhileRunning('revoice', revoice, 100, 1000);
      if (voiced.status !== 'complete') report.failures.push(`revoice ended ${voiced.status}: ${voiced.error}`);
      dubId = dub.id;
      options.log(`  kills: analysis ${report.kills.analysis} (${analysed.status}), revoice ${report.kills.revoice} (${voiced.status})`);
    }

    await svc.stop();
    inspectDatabase(svc.dataDir, (db) => {
      const dupJobs = db.prepare("SELECT session_id, kind, count(*) AS n FROM jobs WHERE status = 'complete' AND kind = 'transcribe' GROUP BY session_id, kind HAVING n > 1").all();
      if (dupJobs.length) report.failures.push(`transcriptions completed more than once: ${JSON.stringify(dupJobs)}`);
      if (later) {
        const runs = db.prepare("SELECT count(*) AS n FROM analysis_runs WHERE session_id = ? AND status = 'complete'").get(sid) as { n: number };
        if (runs.n !== 1) report.failures.push(`${runs.n} complete analysis runs`);
        const revisions = db.prepare('SELECT count(*) AS n FROM dub_revisions WHERE dub_id = ?').get(dubId) as { n: number };
        if (revisions.n !== 2) report.failures.push(`${revisions.n} dub revisions (expected the upload and one revoice)`);
      }
      const sessions = db.prepare("SELECT count(*) AS n FROM sessions s JOIN projects p ON p.id = s.project_id WHERE p.key = 'kills'").get() as { n: number };
      if (sessions.n !== acknowledged.size) report.failures.push(`${sessions.n} sessions for ${acknowledged.size} acknowledged uploads`);
    });
    const integrity = integrityCheck(svc.dataDir);
    if (integrity !== 'ok') report.failures.push(`final integrity_check ${integrity}`);
    // A job that finished before its kills were spent proves less than asked: say so.
    for (const [kind, n] of Object.entries(report.kills)) {
      if (n < limit(kind)) report.failures.push(`only ${n} of ${options.killsPerKind} ${kind} kills: the work finished first`);
    }
  } catch (error) {
    report.failures.push(`harness stopped: ${(error as Error).message}`);
    options.log(svc.output().slice(-2000));
  } finally {
    await svc.kill();
  }
  return report;
}
