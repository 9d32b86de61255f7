/**
 * Memory beside an editor's other tools: the service's WHOLE process tree — the service, its
 * decoders (PocketSphinx), the analysis process, ffmpeg, training tools — sampled from /proc every 250 ms
 * while a long recording is uploaded, transcribed and analysed through the HTTP API, as the studio does.
 * Prints the tree's peak in each phase (and what held it), then the two side by side, from the same run:
 *   before  with --before-tree DIR: the service as an older tree runs it (e.g. `git archive <commit>` unpacked
 *           in DIR beside a node_modules link); without it, this tree with TAKELINE_DECODER_IDLE_SECONDS=0 (the
 *           decoders stay up after the transcription, as they did); with --heap-settings, this tree with the
 *           service's glibc heap settings off (TAKELINE_HEAP_SETTINGS=off)
 *   after   this tree as it is (idle decoders end after 30 s; the analysis decodes into one buffer)
 *
 *   npm run bench -- memory
 *   node --import tsx bench/memory/run.ts [--before-tree DIR | --heap-settings] [--together] [--seconds N] [--hour] [--only before|after] [--settle S]
 *
 * The recording is ../shared/audio/long (13.8 min of read speech); --seconds N takes its first N seconds
 * (a quick look), --hour loops it to 60 minutes with ffmpeg (the target's length; about 15 min of transcription
 * and 10 of analysis here, 2026-11-29).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveMediaTools } from '../../src/service/media/tools';
import { sharedDir } from '../../test/helpers/paths';
import { startServiceProcess } from '../../test/helpers/service';
import { flagValue } from '../lib/args';
import { hostNote } from '../lib/read-load';
import { overallPeak, phasePeaks, TreeSampler, type Classify, type PhasePeak } from './tree';

const log = (s: string) => process.stdout.write(`${s}\n`);
const mb = (kb: number) => Math.round(kb / 1024);
const longFile = path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const seconds = flagValue('--seconds') ? Number(flagValue('--seconds')) : null;
const hour = process.argv.includes('--hour');
const only = flagValue('--only');
const settleSeconds = Number(flagValue('--settle') ?? 45);
const together = process.argv.includes('--together');
const beforeTree = flagValue('--before-tree');
// Before = the service without glibc heap settings (TAKELINE_HEAP_SETTINGS=off), after = as it starts now.
const heapTrial = process.argv.includes('--heap-settings');
const CONFIGS = [
  heapTrial
    ? { name: 'before', note: 'this tree, the service with glibc heap defaults (TAKELINE_HEAP_SETTINGS=off)', env: { TAKELINE_HEAP_SETTINGS: 'off' } as Record<string, string>, cwd: undefined }
    : beforeTree
    ? { name: 'before', note: `the service of ${beforeTree}`, env: {} as Record<string, string>, cwd: path.resolve(beforeTree) }
    : { name: 'before', note: 'this tree, decoders kept up (TAKELINE_DECODER_IDLE_SECONDS=0)', env: { TAKELINE_DECODER_IDLE_SECONDS: '0' }, cwd: undefined },
  { name: 'after', note: 'this tree (the service with glibc heap settings; idle decoders end after 30 s; the analysis decodes into one buffer, runs with glibc heap settings and lets its VAD and tagger go after use)', env: {} as Record<string, string>, cwd: undefined },
].filter((c) => !only || c.name === only);
const PHASES = ['idle', 'upload', 'transcription', 'analysis', 'settled'] as const;

/** What holds the memory: the service itself, the analysis process, the decoders, the media and training tools. */
const classify: Classify = ({ name, cmdline, isRoot }) => {
  if (isRoot) return 'service';
  if (cmdline.includes('analysis-process')) return 'analysis process';
  if (name.startsWith('pocketsphinx')) return 'decoders';
  if (name === 'ffmpeg' || name === 'ffprobe') return 'ffmpeg';
  if (['bw', 'mllr_solve', 'map_adapt', 'sphinx_fe', 'mk_s2sendump'].includes(name)) return 'adaptation tools';
  if (name === 'node') return 'other node';
  return name;
};

function prepareRecording(dir: string): { file: string; seconds: number } {
  const { ffmpeg, ffprobe } = resolveMediaTools();
  const probe = spawnSync(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', longFile], { encoding: 'utf8' });
  const whole = Number(probe.stdout.trim());
  if (!hour && seconds === null) return { file: longFile, seconds: whole };
  const file = path.join(dir, hour ? 'long-hour.flac' : `long-${seconds}s.flac`);
  const args = ['-hide_banner', '-loglevel', 'error', ...(hour ? ['-stream_loop', '-1'] : []), '-i', longFile, '-t', String(hour ? 3600 : seconds), '-c:a', 'flac', '-y', file];
  const made = spawnSync(ffmpeg, args, { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('ffmpeg could not make the recording');
  return { file, seconds: hour ? 3600 : Math.min(seconds!, whole) };
}

async function runOnce(config: (typeof CONFIGS)[number], file: string): Promise<{ peaks: PhasePeak[]; overall: number; rssSum: number; wall: Record<string, number> }> {
  const service = await startServiceProcess({ env: { TAKELINE_MAX_UPLOAD_BYTES: String(2 ** 31), ...config.env }, cwd: config.cwd });
  const auth = { Authorization: `Bearer ${service.key}` };
  const sampler = new TreeSampler(service.child.pid!, classify);
  const wall: Record<string, number> = {};
  let phaseStart = Date.now();
  const enter = (phase: string) => {
    wall[sampler.phase] = (Date.now() - phaseStart) / 1000;
    phaseStart = Date.now();
    sampler.enter(phase);
  };
  const get = async (p: string) => {
    const res = await fetch(`${service.url}${p}`, { headers: auth });
    if (res.status !== 200) throw new Error(`GET ${p}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  try {
    sampler.start(250);
    enter('idle');
    await new Promise((r) => setTimeout(r, 3000));
    enter('upload');
    const form = new FormData();
    form.append('project_key', 'bench-memory');
    form.append('project_name', 'Memory benchmark');
    form.append('file', await fs.openAsBlob(file, { type: 'audio/flac' }), path.basename(file));
    const created = await fetch(`${service.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: form });
    if (created.status !== 201) throw new Error(`upload: HTTP ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    enter('transcription');
    for (;;) {
      const session = await get(`/v1/speech/transcriptions/${id}`);
      if (session.status === 'complete') break;
      if (session.status === 'failed') throw new Error(`${config.name}: the transcription failed: ${String(session.error)}\n${service.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 2000));
    }
    enter('analysis');
    for (;;) {
      // The document's head is enough: a whole document every poll would add the poll's own memory.
      const intel = ((await get(`/v1/speech/transcriptions/${id}/intelligence`)).intelligence ?? {}) as { status?: string };
      if (intel.status === 'complete') break;
      if (intel.status === 'failed' || intel.status === 'unavailable') throw new Error(`${config.name}: the analysis ended ${intel.status}: ${JSON.stringify(intel).slice(0, 500)}\n${service.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 3000));
    }
    enter('settled');
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    enter('end');
  } finally {
    sampler.stop();
    await service.stop();
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
  const samples = sampler.samples.filter((s) => s.phase !== 'end' && s.phase !== 'start');
  const rssSum = samples.reduce((m, s) => Math.max(m, s.rssKb ?? 0), 0);
  return { peaks: phasePeaks(samples), overall: overallPeak(samples)?.totalKb ?? 0, rssSum, wall };
}

function printRun(name: string, note: string, r: Awaited<ReturnType<typeof runOnce>>): void {
  log(`\n### ${name}: ${note}\n`);
  log('| phase | wall s | tree peak MB (PSS) | sum of RSS then | at the peak (PSS) | each kind\'s own peak (MB) |');
  log('|---|---|---|---|---|---|');
  for (const p of r.peaks) {
    const at = Object.entries(p.peak.byKind).sort((a, b) => b[1] - a[1]).map(([k, kb]) => `${k} ${mb(kb)}`).join(', ');
    const own = Object.entries(p.kindPeaksKb).sort((a, b) => b[1] - a[1]).map(([k, kb]) => `${k} ${mb(kb)}`).join(', ');
    log(`| ${p.phase} | ${(r.wall[p.phase] ?? 0).toFixed(0)} | **${mb(p.peak.totalKb)}** | ${mb(p.peak.rssKb ?? 0)} | ${at} | ${own} |`);
  }
  log(`\nwhole run: tree peak ${mb(r.overall)} MB (PSS; the highest sum of the processes' RSS: ${mb(r.rssSum)} MB, counting shared pages again)`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-memory-'));
try {
  const recording = prepareRecording(work);
  log(`recording: ${path.basename(recording.file)}, ${(recording.seconds / 60).toFixed(1)} min; ${hostNote()}`);
  const results: Array<{ name: string; r: Awaited<ReturnType<typeof runOnce>> }> = [];
  if (together) {
    // Both services at once (each tree is sampled on its own; on a shared machine this halves the wait, while
    // the wall times then count both).
    log(`\nrunning ${CONFIGS.map((c) => `${c.name} (${c.note})`).join(' and ')} at the same time…`);
    const all = await Promise.all(CONFIGS.map(async (config) => ({ config, r: await runOnce(config, recording.file) })));
    for (const { config, r } of all) {
      printRun(config.name, config.note, r);
      results.push({ name: config.name, r });
    }
  } else {
    for (const config of CONFIGS) {
      log(`\nrunning ${config.name} (${config.note})…`);
      const r = await runOnce(config, recording.file);
      printRun(config.name, config.note, r);
      results.push({ name: config.name, r });
    }
  }
  if (results.length > 1) {
    log(`\n### side by side (${(recording.seconds / 60).toFixed(1)} min recording; whole tree, PSS, MB)\n`);
    log(`| phase | ${results.map((x) => x.name).join(' | ')} |`);
    log(`|---|${results.map(() => '---').join('|')}|`);
    for (const phase of PHASES) {
      const cells = results.map((x) => {
        const p = x.r.peaks.find((q) => q.phase === phase);
        return p ? `${mb(p.peak.totalKb)} (decoders ${mb(p.peak.byKind.decoders ?? 0)}, analysis ${mb(p.peak.byKind['analysis process'] ?? 0)}, service ${mb(p.peak.byKind.service ?? 0)})` : '–';
      });
      log(`| ${phase} | ${cells.join(' | ')} |`);
    }
    log(`| whole run (PSS) | ${results.map((x) => `**${mb(x.r.overall)}**`).join(' | ')} |`);
    log(`| highest sum of RSS | ${results.map((x) => `${mb(x.r.rssSum)}`).join(' | ')} |`);
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
