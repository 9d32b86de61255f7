/**
 * Corrections teach the recognizer (README here): for each reader of the ASR set, a project per
 * condition on a real service process. The reader's earlier recordings are uploaded (transcribed in order, each
 * adding to the speaker's adaptation), then (a) left as recognized, or (b) corrected to
 * their references through the API (a one-line transcript by `PATCH …/segments/0`, a longer one by aligning the
 * reference as a script, `POST …/transcript/align`); then the same later recordings are uploaded to both and
 * scored, all decoded with the transform the earlier recordings taught. Prints both conditions' WER of the later recordings per half (bench/lib/halves.ts), the relative
 * change in errors with its paired bootstrap interval, what the corrected projects learnt (corrected seconds
 * behind each speaker's transform, words added to the vocabulary) and the CPU.
 *
 *   node --import tsx bench/learning/run.ts [--readers amateur,ljspeech] [--earlier 0.5] [--every 1] [--offset 0] [--map on|off]
 *     [--held-out ljspeech] [--save results.json] [--as-recognized-from results.json] [--report-from results.json]
 *
 * `--every N` keeps every N-th pair of files (halves alternate by name, so a pair is one file of each); `--offset K`
 * starts at the K-th pair (`--every 2 --offset 1` is the other half of the pairs `--every 2` leaves out).
 * `--map off` has the corrected project adapt by the MLLR transform alone (TAKELINE_ADAPTATION_MAP=off), as before
 * MAP means from corrected speech; the as-recognized project has no corrected speech, so MAP never runs there.
 * Both conditions run at the same time (one service each), so they share the machine's load.
 * `--held-out R` names a reader nothing was chosen on (leave-one-reader-out): its change is printed apart from the
 * tuning readers'. `--save F` writes every scored file of both conditions; `--as-recognized-from F` takes the
 * as-recognized condition from such a file instead of running it (that path is deterministic, and a change to how
 * corrections teach leaves it as it was), so a run compares a change at half the CPU. `--report-from F` prints a
 * saved run's tables again (another `--held-out`, say) without running anything.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { errorCount, sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { halves, type Half } from '../lib/halves';
import { speakerOf } from '../lib/readers';
import { relativeChangeInterval } from '../lib/bootstrap';
import { childProcesses, readProcStat } from '../../test/helpers/proc-stat';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../../test/helpers/service';
import { flagValue as flag } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const readers = (flag('--readers') ?? 'amateur,ljspeech').split(',');
const earlierShare = Number(flag('--earlier') ?? 0.5);
const every = Number(flag('--every') ?? 1);
const offset = Number(flag('--offset') ?? 0);
const map = flag('--map') ?? 'on';
const heldOut = flag('--held-out');
const saveTo = flag('--save');
const plainFrom = flag('--as-recognized-from');
const reportFrom = flag('--report-from');
if (heldOut && !readers.includes(heldOut)) throw new Error(`--held-out ${heldOut} is not among --readers ${readers.join(',')}`);

const refs = new Map(
  readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .map(([file, duration, text]) => [file!, { duration: Number(duration), text: text! }]),
);
const allFiles = readdirSync(asrDir).filter((f) => refs.has(f));
const half = halves(allFiles);

/** Each reader's recordings in file-name order: the first share earlier (taught), the rest later (scored). */
const plan = readers.map((reader) => {
  const files = allFiles
    .filter((f) => speakerOf(f) === reader)
    .sort()
    // Every `every`-th pair of files, so both halves (which alternate by name) keep their share.
    .filter((_, i) => Math.floor(i / 2) % every === offset % every);
  const cut = Math.round(files.length * earlierShare);
  return { reader, earlier: files.slice(0, cut), later: files.slice(cut) };
});

type Condition = 'as-recognized' | 'corrected';

interface Scored {
  reader: string;
  file: string;
  half: Half;
  wer: WerResult;
  adaptedChunks: number;
  chunks: number;
}

interface ConditionResult {
  condition: Condition;
  scored: Scored[];
  corrections: { patched: number; aligned: number; unchanged: number; correctedSeconds: Record<string, number>; vocabulary: Record<string, string[]>; mapSpeakers: number };
  cpu: number;
  wall: number;
}

const auth = (svc: ServiceProcess) => ({ Authorization: `Bearer ${svc.key}` });

async function api(svc: ServiceProcess, method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${svc.url}${route}`, {
    method,
    headers: { ...auth(svc), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

async function upload(svc: ServiceProcess, project: string, file: string): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: project },
    { name: 'file', file: readFileSync(path.join(asrDir, file)), filename: file },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(svc), 'Content-Type': contentType }, body });
  if (res.status !== 201) throw new Error(`upload of ${file} failed: ${res.status} ${res.text()}`);
  return res.json().id;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settled(svc: ServiceProcess, id: string): Promise<any> {
  for (;;) {
    const { json } = await api(svc, 'GET', `/v1/speech/transcriptions/${id}`);
    if (json.status === 'complete') return json;
    if (json.status === 'failed') throw new Error(`transcription failed: ${json.error}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** No job waiting or running: each recording's adaptation is done before the next one is uploaded (the online order). */
async function jobsIdle(db: Database.Database): Promise<void> {
  for (;;) {
    const row = db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running') AND kind IN ('transcribe', 'speaker-adaptation', 'speaker-profiles')").get() as { n: number };
    if (row.n === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function serviceCpu(pid: number): number {
  const own = readProcStat(pid);
  return own.cpuSeconds + own.childrenCpuSeconds + childProcesses(pid).reduce((a, c) => a + c.cpuSeconds + c.childrenCpuSeconds, 0);
}

async function runCondition(condition: Condition): Promise<ConditionResult> {
  const svc = await startServiceProcess(condition === 'corrected' ? { env: { TAKELINE_ADAPTATION_MAP: map } } : {});
  const db = new Database(path.join(svc.dataDir, 'takeline.db'), { readonly: true, fileMustExist: true });
  const started = Date.now();
  const scored: Scored[] = [];
  const corrections: ConditionResult['corrections'] = { patched: 0, aligned: 0, unchanged: 0, correctedSeconds: {}, vocabulary: {}, mapSpeakers: 0 };
  try {
    for (const { reader, earlier, later } of plan) {
      const project = reader.replace(/[^a-z0-9_-]/g, '-');
      // All of a phase's recordings are queued at once (uploaded in order): the service's one job queue still takes
      // them in order (each transcription, then the adaptation jobs), and no time is lost between them.
      const taught: string[] = [];
      for (const file of earlier) taught.push(await upload(svc, project, file));
      for (const id of taught) await settled(svc, id);
      await jobsIdle(db);
      if (condition === 'corrected') {
        for (const [k, id] of taught.entries()) {
          const reference = refs.get(earlier[k]!)!.text;
          const session = await settled(svc, id);
          const segments = session.transcript.segments as Array<{ id: number }>;
          const S = `/v1/speech/transcriptions/${id}/transcript`;
          const res =
            segments.length === 1
              ? await api(svc, 'PATCH', `${S}/segments/${segments[0]!.id}`, { text: reference })
              : await api(svc, 'POST', `${S}/align`, { text: reference });
          if (res.status === 200) {
            if (segments.length === 1) corrections.patched++;
            else corrections.aligned++;
          } else if (res.status === 422 && JSON.stringify(res.json).includes('already the line')) corrections.unchanged++;
          else throw new Error(`correcting ${earlier[k]} failed: ${res.status} ${JSON.stringify(res.json)}`);
        }
        // The corrections' adaptation jobs (one per recording) done before the later recordings come.
        await jobsIdle(db);
        const detail = (await api(svc, 'GET', `/v1/speech/projects/${project}`)).json;
        for (const s of detail.speakers as Array<{ name: string; adaptation: { corrected_seconds: number; map_means: boolean } | null }>) {
          if (s.adaptation) corrections.correctedSeconds[`${reader} ${s.name}`] = s.adaptation.corrected_seconds;
          // Speakers whose later recordings decode by MAP means (speaker-adaptation.ts keeps them beside the transform).
          if (s.adaptation?.map_means) corrections.mapSpeakers++;
        }
        corrections.vocabulary[reader] = (await api(svc, 'GET', `/v1/speech/projects/${project}/vocabulary`)).json.terms;
      }
      // The later recordings are all decoded with what the earlier ones taught (their own adaptation jobs queue
      // behind every transcription), so both conditions decode them with one transform each.
      const ids: string[] = [];
      for (const file of later) ids.push(await upload(svc, project, file));
      for (const [k, id] of ids.entries()) {
        const file = later[k]!;
        const session = await settled(svc, id);
        const adaptation = session.transcript.adaptation as { chunks: number; speakers: Array<{ chunks: number }> } | undefined;
        scored.push({
          reader,
          file,
          half: half.get(file)!,
          wer: wordErrorRate(refs.get(file)!.text, session.transcript.text),
          chunks: adaptation?.chunks ?? 0,
          adaptedChunks: adaptation?.speakers.reduce((a, s) => a + s.chunks, 0) ?? 0,
        });
        process.stderr.write(`${condition} ${file}: ${errorCount(scored.at(-1)!.wer)} errors, ${scored.at(-1)!.adaptedChunks}/${scored.at(-1)!.chunks} chunks adapted\n`);
      }
      await jobsIdle(db);
    }
    return { condition, scored, corrections, cpu: serviceCpu(svc.child.pid!), wall: (Date.now() - started) / 1000 };
  } catch (error) {
    process.stderr.write(`${condition}: the service's last log lines:\n${svc.output().slice(-4000)}\n`);
    throw error;
  } finally {
    db.close();
    await svc.stop();
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pooled = (rows: Scored[]) => {
  const w = sumWer(rows.map((r) => r.wer));
  return `${pct(w.wer).padStart(6)} (S ${w.substitutions} D ${w.deletions} I ${w.insertions} / ${w.referenceWords})`;
};

const seconds = (files: string[]) => files.reduce((a, f) => a + refs.get(f)!.duration, 0);
for (const p of plan) {
  console.log(
    `${p.reader}: ${p.earlier.length} earlier recordings (${seconds(p.earlier).toFixed(1)} s) taught, ${p.later.length} later ones (${seconds(p.later).toFixed(1)} s) scored: ` +
      `tuning half ${p.later.filter((f) => half.get(f) === 'tune').length}, test half ${p.later.filter((f) => half.get(f) === 'test').length}`,
  );
}
if (!reportFrom) console.log(`load before: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
/** The as-recognized condition of an earlier run (--save), for the files this run scores. */
function savedPlain(file: string): ConditionResult {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { plain: ConditionResult };
  const wanted = new Set(plan.flatMap((p) => p.later));
  const scored = saved.plain.scored.filter((s) => wanted.has(s.file));
  if (scored.length !== wanted.size) throw new Error(`${file} scored ${scored.length} of this run's ${wanted.size} later recordings: run the same --readers/--every/--offset`);
  return { ...saved.plain, scored };
}
/** Both conditions of a saved run, for the files this run's options name. */
function savedRun(file: string): [ConditionResult, ConditionResult] {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { corrected: ConditionResult };
  const wanted = new Set(plan.flatMap((p) => p.later));
  return [savedPlain(file), { ...saved.corrected, scored: saved.corrected.scored.filter((s) => wanted.has(s.file)) }];
}
const [plain, corrected] = reportFrom
  ? savedRun(reportFrom)
  : plainFrom
    ? await runCondition('corrected').then((c) => [savedPlain(plainFrom), c] as const)
    : await Promise.all([runCondition('as-recognized'), runCondition('corrected')]);
if (!reportFrom) console.log(`load after: ${readFileSync('/proc/loadavg', 'utf8').trim()}\n`);
if (saveTo) writeFileSync(saveTo, JSON.stringify({ plan, plain, corrected }, null, 1));

const plainByFile = new Map(plain.scored.map((s) => [s.file, errorCount(s.wer)]));
/** The corrected condition's change in errors against as recognized over some later recordings, with its interval. */
function change(keep: (s: Scored) => boolean): string {
  const ours = corrected.scored.filter(keep);
  if (ours.length === 0) return '';
  const be = ours.reduce((a, s) => a + plainByFile.get(s.file)!, 0);
  const ae = ours.reduce((a, s) => a + errorCount(s.wer), 0);
  // Later files of a project are not independent (each teaches the next), so the interval says how much the
  // file-to-file spread alone could move the change.
  const ci = relativeChangeInterval(ours.map((s) => ({ stratum: s.reader, ours: errorCount(s.wer), baseline: plainByFile.get(s.file)! })), { target: -0.1 });
  return `${be} → ${ae} (${pct(ci.relative)}, ${pct(ci.low)} … ${pct(ci.high)})`;
}

// The tuning half beside the test half, per group of readers: WER as recognized, corrected, and the change in errors
// (95 % of a paired bootstrap over files).
const col = 34;
const groups: Array<[string, (s: Scored) => boolean]> = [['all readers', () => true]];
if (readers.length > 1) for (const r of readers) groups.push([`  ${r}${r === heldOut ? ' (held out)' : ''}`, (s) => s.reader === r]);
if (heldOut && readers.length > 2) groups.push(['tuning readers', (s) => s.reader !== heldOut]);
for (const [condition, rows] of [['as recognized', plain.scored], ['corrected', corrected.scored]] as const) {
  console.log([`${condition}, WER`.padEnd(26), 'tuning half'.padStart(col), 'test half'.padStart(col)].join(''));
  for (const [name, keep] of groups) {
    console.log([name.padEnd(26), ...(['tune', 'test'] as const).map((h) => pooled(rows.filter((s) => keep(s) && s.half === h)).padStart(col))].join(''));
  }
  console.log();
}
console.log(['corrected vs as recognized'.padEnd(26), 'tuning half'.padStart(col + 4), 'test half'.padStart(col + 4)].join(''));
for (const [name, keep] of groups) console.log([name.padEnd(26), ...(['tune', 'test'] as const).map((h) => change((s) => keep(s) && s.half === h).padStart(col + 4))].join(''));
for (const h of ['tune', 'test'] as const) {
  const ci = relativeChangeInterval(
    corrected.scored.filter((s) => s.half === h).map((s) => ({ stratum: s.reader, ours: errorCount(s.wer), baseline: plainByFile.get(s.file)! })),
    { target: -0.1 },
  );
  console.log(`${h} half, all readers: ${pct(ci.atOrBelowTarget ?? 0)} of resamples at or below −10%`);
}
if (heldOut) console.log(`held-out reader ${heldOut}, both halves (nothing was chosen on it): ${change((s) => s.reader === heldOut)}`);
const c = corrected.corrections;
console.log(`\ncorrections: ${c.patched} one-line transcripts corrected by PATCH, ${c.aligned} aligned as a script, ${c.unchanged} already right`);
console.log(`corrected seconds behind each adapted speaker: ${JSON.stringify(c.correctedSeconds)}`);
console.log(`MAP means from corrected speech: ${map === 'off' ? 'off (--map off)' : `on, ${c.mapSpeakers} speakers decode by them`}`);
for (const [reader, terms] of Object.entries(c.vocabulary)) console.log(`vocabulary learnt (${reader}, ${terms.length}): ${terms.join(', ')}`);
for (const r of [plain, corrected]) {
  const adapted = r.scored.reduce((a, s) => a + s.adaptedChunks, 0);
  const chunks = r.scored.reduce((a, s) => a + s.chunks, 0);
  console.log(`${r.condition.padEnd(14)} service CPU ${r.cpu.toFixed(1)} s, wall ${r.wall.toFixed(0)} s; later chunks decoded adapted ${adapted}/${chunks}`);
}
