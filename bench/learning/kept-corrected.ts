/**
 * How much of a reader's corrected speech MAP should learn from (README here, "Every corrected recording kept"):
 * the reader's earlier recordings, each corrected (its reference as the editor's words), are added one by one to a
 * speaker's adaptation as the service adds them (speaker-adaptation.ts: Baum-Welch along the current transform,
 * MLLR from the kept statistics, MAP means from the corrected ones); then the later recordings are decoded (whole
 * files, the service's decoder flags) by MAP means from the newest `--old-cap` corrected recordings (the bound
 * before: 20) and from all of them. Prints the WER per half, tuning beside test, and the change in errors.
 *
 *   nice node --import tsx bench/learning/kept-corrected.ts [--reader amateur] [--old-cap 20]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { mapAdaptMeans, resolveSphinxtrain, solveMllr, transformMeans } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { RECOGNITION_ARGS } from '../../src/service/speech/recognition/pocketsphinx/decoder-args';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { openDatabase } from '../../src/service/storage/database';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { SqlAdaptationStore } from '../../src/service/storage/adaptation-store';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { alignableWords, SpeakerAdaptation } from '../../src/service/speakers/speaker-adaptation';
import { errorCount, sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { halves } from '../lib/halves';
import { speakerOf } from '../lib/readers';
import { relativeChangeInterval } from '../lib/bootstrap';
import { flagValue as flag } from '../lib/args';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const reader = flag('--reader') ?? 'amateur';
const oldCap = Number(flag('--old-cap') ?? 20);

const refs = new Map(
  fs.readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8').trim().split('\n').slice(1)
    .map((l) => l.split('\t')).map(([file, , text]) => [file!, text!]),
);
const files = [...refs.keys()].filter((f) => speakerOf(f) === reader).sort();
const half = halves([...refs.keys()]);
const cut = Math.round(files.length / 2);
const earlier = files.slice(0, cut);
const later = files.slice(cut);

const model = resolvePocketSphinxModel();
const tools = resolveSphinxtrain();
if (!tools) throw new Error('sphinxtrain is not installed');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-kept-corrected-'));
const PROJECT = '00000000-0000-4000-8000-000000000001';
const SPEAKER = '00000000-0000-4000-8000-000000000002';
const db = openDatabase(path.join(root, 'takeline.db'));
db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES (?, 'p', 'P', '2026-01-01T00:00:00Z')").run(PROJECT);
db.prepare("INSERT INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES (?, ?, 1, 'A', 'S1', '{}', '2026-01-01T00:00:00Z')").run(SPEAKER, PROJECT);
const store = new SqlAdaptationStore(new SqliteSql(db));
const adaptation = new SpeakerAdaptation(
  { enabled: true, minSeconds: 30, maxSeconds: 600, maxRecordings: 20, alignAdapted: true, withinRecording: false, mapFromCorrections: true },
  { model, tools, store, blobs: new FolderBlobStore(root), cacheDir: root, scratchDir: path.join(root, 'scratch') },
);
const dictionary = adaptation.words();
const media = resolveMediaTools();
const pcmOf = async (file: string) => float32ToInt16Le(await decodeAudioToArray(path.join(asrDir, file), media));

console.log(`${reader}: ${earlier.length} earlier recordings corrected, ${later.length} later decoded; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
let skipped = 0;
for (const [i, file] of earlier.entries()) {
  const words = alignableWords(refs.get(file)!.split(/\s+/).map((word) => ({ word })), dictionary);
  if (!words) {
    skipped++;
    continue;
  }
  const session = `00000000-0000-4000-8000-${String(100000000000 + i)}`;
  const chunk = { id: `c${i}`, pcm: await pcmOf(file), hypothesis: words.join(' '), corrected: true };
  await adaptation.addRecording(PROJECT, SPEAKER, session, [chunk]);
}
const state = (await store.get(SPEAKER))!.state;
const hmm = path.join(root, 'sphinxtrain-model');
const dirOf = (r: { prefix: string }) => path.join(root, r.prefix);
console.log(`kept ${state.recordings.length} corrected recordings (${skipped} left out: words without a dictionary entry)`);

// The old bound: the newest `oldCap` of the same statistics, MLLR then MAP as the service does.
const work = path.join(root, 'old');
fs.mkdirSync(work);
const newest = [...state.recordings].sort((a, b) => (a.at < b.at ? 1 : -1)).slice(0, oldCap);
await solveMllr(tools, hmm, newest.map(dirOf), path.join(work, 'transform.mllr'), path.join(work, 'mllr.log'));
await transformMeans(tools, hmm, path.join(work, 'transform.mllr'), path.join(work, 'prior.means'), path.join(work, 'transform.log'));
await mapAdaptMeans(tools, hmm, path.join(work, 'prior.means'), newest.map(dirOf), path.join(work, 'map.means'), path.join(work, 'map.log'));
const seconds = (list: typeof state.recordings) => list.reduce((a, r) => a + r.seconds, 0).toFixed(1);
console.log(`means from the newest ${newest.length} (${seconds(newest)} s) and from all ${state.recordings.length} (${seconds(state.recordings)} s)`);

const rawDir = path.join(root, 'raw');
fs.mkdirSync(rawDir);
for (const [i, file] of later.entries()) fs.writeFileSync(path.join(rawDir, `l${i}.raw`), await pcmOf(file));
fs.writeFileSync(path.join(root, 'later.ctl'), later.map((_, i) => `l${i}`).join('\n') + '\n');

async function decode(means: string, name: string): Promise<WerResult[]> {
  const hyp = path.join(root, `${name}.hyp`);
  await run('pocketsphinx_batch', [
    '-hmm', model.hmm, '-dict', model.dict, '-lm', model.lm, '-mean', means, '-ctl', path.join(root, 'later.ctl'), '-adcin', 'yes',
    '-cepdir', rawDir, '-cepext', '.raw', '-hyp', hyp, ...Object.entries(RECOGNITION_ARGS).flat(),
  ], { maxBuffer: 1 << 26 });
  const text = new Map(fs.readFileSync(hyp, 'utf8').trim().split('\n').map((l) => {
    const m = l.match(/^(.*?) ?\((l\d+)(?: -?\d+)?\)$/);
    return [m![2]!, m![1]!] as const;
  }));
  return later.map((f, i) => wordErrorRate(refs.get(f)!, text.get(`l${i}`) ?? ''));
}
const [before, after] = await Promise.all([decode(path.join(work, 'map.means'), 'old'), decode(dirOf({ prefix: state.means! }), 'all')]);

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pooled = (rows: WerResult[]) => {
  const w = sumWer(rows);
  return `${pct(w.wer)} (S ${w.substitutions} D ${w.deletions} I ${w.insertions} / ${w.referenceWords})`;
};
console.log(['later recordings'.padEnd(28), 'tuning half'.padStart(34), 'test half'.padStart(34)].join(''));
const byHalf = (rows: WerResult[], h: string) => rows.filter((_, i) => half.get(later[i]!) === h);
console.log([`MAP from the newest ${oldCap}`.padEnd(28), ...['tune', 'test'].map((h) => pooled(byHalf(before, h)).padStart(34))].join(''));
console.log([`MAP from all`.padEnd(28), ...['tune', 'test'].map((h) => pooled(byHalf(after, h)).padStart(34))].join(''));
for (const h of ['tune', 'test']) {
  const pairs = later.map((f, i) => ({ f, i })).filter(({ f }) => half.get(f) === h).map(({ i }) => ({ stratum: reader, ours: errorCount(after[i]!), baseline: errorCount(before[i]!) }));
  const ci = relativeChangeInterval(pairs, {});
  console.log(`all vs newest ${oldCap}, ${h} half: ${pairs.reduce((a, p) => a + p.baseline, 0)} → ${pairs.reduce((a, p) => a + p.ours, 0)} errors (${pct(ci.relative)}; 95% of a paired bootstrap over files ${pct(ci.low)} … ${pct(ci.high)})`);
}
db.close();
fs.rmSync(root, { recursive: true, force: true });
