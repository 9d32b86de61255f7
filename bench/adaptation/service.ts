/**
 * Online speaker adaptation through the service (README here, "Online adaptation in the service"): the
 * amateur reader's recordings uploaded one after another, in file-name order, into one project of a real
 * service process, each waiting for the previous one's transcription and adaptation job; WER (S/D/I) of
 * the tuning and test halves and CPU per audio second, for each configuration, side by side in one run.
 *
 *   nice -n 10 node --import tsx bench/adaptation/service.ts [--configs off,on:30] [--sources amateur] [--every 1] [--order name|id]
 *       [--room ir_smartphone_mic_mono.flac | --rt60 0.3 --drr 6] [--noise ambience-pub.flac --snr 10] [--telephone] [--codec opus:16]
 *
 * With a degradation (bench/lib/degrade.ts), every recording is put in that room, noise or channel first and
 * uploaded as a 16 kHz WAV: a project whose recordings were all made in the same poor conditions.
 * A configuration is `off` (TAKELINE_SPEAKER_ADAPTATION=off) or `on:N` (on, a transform once a speaker has
 * N s of aligned speech). The configurations run at the same time (one service each), so they share the
 * machine's load; CPU is counted per service (its own, its reaped children's — bw, ffmpeg — and its live
 * decoders').
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { errorCount, sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { encodeWav } from '../../src/service/media/wav';
import { loadAudio, RATE } from '../../src/service/speech/quality/signals.testutil';
import { degradationFromArgs, degraded, describeDegradation } from '../lib/degrade';
import { halves, sourceOf, type Half } from '../lib/halves';
import { relativeChangeInterval } from '../lib/bootstrap';
import { childProcesses, readProcStat } from '../../test/helpers/proc-stat';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../../test/helpers/service';
import { flagValue as flag } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const configs = (flag('--configs') ?? 'off,on:30').split(',');
const sources = new Set((flag('--sources') ?? 'amateur').split(','));
const every = Number(flag('--every') ?? 1);
// `id`: by the name after the source prefix, so readers of the same sentences alternate in the project.
const order = flag('--order') ?? 'name';
const degradation = degradationFromArgs(process.argv);

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
const sortKey = (f: string) => (order === 'id' ? `${f.slice(f.indexOf('_') + 1)} ${f}` : f);
const files = allFiles
  .filter((f) => sources.has(sourceOf(f)))
  .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))
  .filter((_, i) => i % every === 0);

/** CPU seconds of a process: its own, its reaped children's, and its live children's (the decoders). */
function serviceCpu(pid: number): { total: number; decoders: number } {
  const own = readProcStat(pid);
  let total = own.cpuSeconds + own.childrenCpuSeconds;
  let decoders = 0;
  for (const child of childProcesses(pid)) {
    const cpu = child.cpuSeconds + child.childrenCpuSeconds;
    total += cpu;
    if (child.name.startsWith('pocketsphinx')) decoders += cpu;
  }
  return { total, decoders };
}

interface FileResult {
  file: string;
  half: Half;
  wer: WerResult;
  adaptedChunks: number;
  /** Chunks decoded with the transform of a project speaker the recording's diarization did not map to. */
  foreignChunks: number;
  chunks: number;
}

interface RunResult {
  config: string;
  results: FileResult[];
  cpu: { total: number; decoders: number };
  wall: number;
  profileMs: number;
  transforms: string[];
  speakers: number;
}

async function runConfig(config: string): Promise<RunResult> {
  // off | on:N | aligned:N (statistics collected along the speaker's current transform)
  const [mode, minSeconds] = config.split(':');
  const env: Record<string, string> = {
    TAKELINE_SPEAKER_ADAPTATION: mode === 'off' ? 'off' : 'on',
    TAKELINE_ADAPTATION_ALIGN_ADAPTED: mode === 'aligned' ? 'on' : 'off',
  };
  if (minSeconds) env.TAKELINE_ADAPTATION_MIN_SECONDS = minSeconds;
  const svc = await startServiceProcess({ env });
  const auth = { Authorization: `Bearer ${svc.key}` };
  const db = new Database(path.join(svc.dataDir, 'takeline.db'), { readonly: true, fileMustExist: true });
  const started = Date.now();
  const results: FileResult[] = [];
  try {
    for (const file of files) {
      const id = await upload(svc, file);
      const session = await settled(svc, id, auth);
      // The adaptation job (and any job) of this recording done before the next upload: the online order.
      await jobsIdle(db);
      const transcript = session.transcript ?? { text: '', adaptation: undefined };
      const adaptation = transcript.adaptation as { chunks: number; speakers: Array<{ speaker_id: string; chunks: number }> } | undefined;
      const mapped = new Set(Object.values(session.speaker_map as Record<string, { speaker_id: string }>).map((e) => e.speaker_id));
      results.push({
        file,
        half: half.get(file)!,
        wer: wordErrorRate(refs.get(file)!.text, transcript.text),
        chunks: adaptation?.chunks ?? 0,
        adaptedChunks: adaptation?.speakers.reduce((a, s) => a + s.chunks, 0) ?? 0,
        foreignChunks: adaptation?.speakers.filter((s) => !mapped.has(s.speaker_id)).reduce((a, s) => a + s.chunks, 0) ?? 0,
      });
      process.stderr.write(`${config} ${file}: ${results.at(-1)!.adaptedChunks}/${results.at(-1)!.chunks} chunks adapted\n`);
    }
    const cpu = serviceCpu(svc.child.pid!);
    const wall = (Date.now() - started) / 1000;
    const profileMs = [...svc.output().matchAll(/chunk profiles took (\d+) ms/g)].reduce((a, m) => a + Number(m[1]), 0);
    const transforms = [...svc.output().matchAll(/adaptation: speaker \S+ from .*/g)].map((m) => m[0]);
    const project = await (await fetch(`${svc.url}/v1/speech/projects/reader`, { headers: auth })).json();
    return { config, results, cpu, wall, profileMs, transforms, speakers: project.speakers.length };
  } finally {
    db.close();
    await svc.stop();
  }
}

const uploads = new Map<string, Promise<{ bytes: Buffer; filename: string }>>();
/**
 * The recording as uploaded: the file itself, or made worse as asked. Made once and shared by every configuration,
 * which all upload the same audio.
 */
function recording(file: string): Promise<{ bytes: Buffer; filename: string }> {
  let made = uploads.get(file);
  if (!made) uploads.set(file, (made = makeRecording(file)));
  return made;
}

async function makeRecording(file: string): Promise<{ bytes: Buffer; filename: string }> {
  if (!degradation) return { bytes: readFileSync(path.join(asrDir, file)), filename: file };
  const pcm = await degraded(await loadAudio(path.join('asr', file)), degradation, files.indexOf(file));
  return { bytes: encodeWav(pcm, { sampleRate: RATE, channels: 1, sampleFormat: 'f32' }), filename: file.replace(/\.\w+$/, '.wav') };
}

async function upload(svc: ServiceProcess, file: string): Promise<string> {
  const { bytes, filename } = await recording(file);
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: 'reader' },
    { name: 'file', file: bytes, filename },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType },
    body,
  });
  if (res.status !== 201) throw new Error(`upload of ${file} failed: ${res.status} ${res.text()}`);
  return res.json().id;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settled(svc: ServiceProcess, id: string, auth: Record<string, string>): Promise<any> {
  for (;;) {
    const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    if (session.status === 'complete') return session;
    if (session.status === 'failed') throw new Error(`transcription failed: ${session.error}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function jobsIdle(db: Database.Database): Promise<void> {
  for (;;) {
    const row = db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running') AND kind = 'speaker-adaptation'").get() as { n: number };
    if (row.n === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
function pooled(results: FileResult[]): string {
  const w = sumWer(results.map((r) => r.wer));
  return `${pct(w.wer).padStart(6)} (S ${w.substitutions} D ${w.deletions} I ${w.insertions} / ${w.referenceWords})`;
}

const audioSeconds = files.reduce((a, f) => a + refs.get(f)!.duration, 0);
console.log(
  `files: ${files.length} (${[...sources].join(', ')}), ${audioSeconds.toFixed(1)} s of audio, ${describeDegradation(degradation ?? {})}; configurations ${configs.join(', ')} run side by side`,
);
console.log(`load before: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
const runs = await Promise.all(configs.map(runConfig));
console.log(`load after: ${readFileSync('/proc/loadavg', 'utf8').trim()}\n`);

const col = 34;
console.log(['half'.padEnd(6), ...runs.map((r) => r.config.padStart(col))].join(''));
for (const h of ['tune', 'test'] as const) {
  console.log([h.padEnd(6), ...runs.map((r) => pooled(r.results.filter((x) => x.half === h)).padStart(col))].join(''));
}
console.log(['all'.padEnd(6), ...runs.map((r) => pooled(r.results).padStart(col))].join(''));
if (sources.size > 1) {
  for (const source of sources)
    for (const h of ['tune', 'test'] as const)
      console.log(
        [`${source} ${h}`.padEnd(18), ...runs.map((r) => pooled(r.results.filter((x) => x.half === h && sourceOf(x.file) === source)).padStart(col))].join(''),
      );
}
console.log();
for (const r of runs) {
  const chunks = r.results.reduce((a, x) => a + x.chunks, 0);
  const adapted = r.results.reduce((a, x) => a + x.adaptedChunks, 0);
  const foreign = r.results.reduce((a, x) => a + x.foreignChunks, 0);
  console.log(
    `${r.config.padEnd(8)} service CPU ${r.cpu.total.toFixed(1)} s (${(r.cpu.total / audioSeconds).toFixed(3)} per audio s), decoders ${r.cpu.decoders.toFixed(1)} s (${(r.cpu.decoders / audioSeconds).toFixed(3)}), wall ${r.wall.toFixed(0)} s; project speakers ${r.speakers}; chunks decoded adapted ${adapted}/${chunks} (${foreign} with another speaker's transform than the recording's); chunk profiles ${r.profileMs} ms (${((r.profileMs / 1000 / audioSeconds) * 1000).toFixed(2)} ms per audio s)`,
  );
}
const base = runs.find((r) => r.config === 'off');
if (base) {
  const offByFile = new Map(base.results.map((x) => [x.file, errorCount(x.wer)]));
  for (const r of runs.filter((x) => x !== base)) {
    for (const h of ['tune', 'test'] as const) {
      const b = sumWer(base.results.filter((x) => x.half === h).map((x) => x.wer));
      const a = sumWer(r.results.filter((x) => x.half === h).map((x) => x.wer));
      const be = errorCount(b);
      const ae = errorCount(a);
      // Files of a project are not independent (later ones decode with what earlier ones taught), so the interval
      // says how much the file-to-file spread alone could move the change.
      const ci = relativeChangeInterval(
        r.results.filter((x) => x.half === h).map((x) => ({ stratum: sourceOf(x.file), ours: errorCount(x.wer), baseline: offByFile.get(x.file)! })),
      );
      console.log(
        `${r.config} vs off, ${h} half: ${be} → ${ae} errors (${pct((ae - be) / be)}; 95% of a paired bootstrap over files ${pct(ci.low)} … ${pct(ci.high)}); CPU ${(r.cpu.total / base.cpu.total).toFixed(3)} × off`,
      );
    }
  }
}
for (const r of runs) if (r.transforms.length) console.log(`${r.config}: last transform: ${r.transforms.at(-1)}`);
