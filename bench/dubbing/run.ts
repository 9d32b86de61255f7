/**
 * Dubbing benchmark.
 *
 * 1. Revoicing 10 lines of a 10-minute dub: the first 10 minutes of ../shared/audio/long (real read speech,
 *    with its reference segments as the dub's lines) as a 48 kHz stereo 24-bit master; 10 lines spread over
 *    it are corrected (two speakers: festival's HTS voice and flite's rms) and revoiced through the API,
 *    BENCH_DUBBING_RUNS times (each run corrects them again and builds on the previous revision). Reports
 *    wall time to the new revision, time to the first and last line rendered, the CPU seconds of the service's
 *    whole process tree (the service, its festival and decoder processes, ffmpeg: from /proc, so independent
 *    of the machine's load), and checks every frame outside the lines' regions is unchanged.
 * 2. Three takes of one line (`POST …/lines/{id}/takes {"count":3}`: the line's voice at its own speed, 0.9
 *    and 1.1), BENCH_DUBBING_RUNS times on different lines of the same dub, for a line in festival's HTS voice
 *    (the default) and for one in flite's rms: wall time until all are rendered, and the process tree's CPU
 *    seconds (per take: a third).
 * 3. `POST /v1/audio/speech` latency to first byte and to the last, per engine, for one sentence and for a
 *    paragraph, in mp3 and pcm (BENCH_DUBBING_SPEECH_RUNS each, after a warm-up request).
 * 4. A dub from the recording (`{"source":"recording"}`) of ../shared/audio/long: its transcription time, then
 *    the time from the request to the dub being ready (BENCH_DUBBING_FROM_RECORDING=0 skips it).
 *
 * With --before-tree DIR (an older tree, e.g. `git archive <commit>` unpacked in DIR beside a node_modules
 * link), a second service runs from it and parts 1–3 (part 3 for festival-hts only, the engine that changed)
 * go to both, one request after the other, so both see the same load; both columns are printed side by side.
 *
 *   node --import tsx bench/dubbing/run.ts [--before-tree DIR]
 *
 * Env: BENCH_DUBBING_RUNS (3), BENCH_DUBBING_SPEECH_RUNS (5; 0 skips part 3), BENCH_DUBBING_SECONDS (600),
 * BENCH_DUBBING_FROM_RECORDING (1). The service renders TAKELINE_DUB_RENDER_PARALLEL lines at once (2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../../test/helpers/service';
import { audioDir } from '../../test/helpers/paths';
import { dubMaster, referenceLines } from '../../test/helpers/dubs';
import { frameBytes, parseWavHeader } from '../../src/service/media/wav';
import { processTreeCpuSeconds } from '../team/tree-cpu';
import { flagValue } from '../lib/args';
import { hostNote } from '../lib/read-load';
import { writeResult } from '../lib/results';

const RUNS = Number(process.env.BENCH_DUBBING_RUNS ?? 3);
const SPEECH_RUNS = Number(process.env.BENCH_DUBBING_SPEECH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_DUBBING_SECONDS ?? 600);
const LINES = 10;
const beforeTree = flagValue('--before-tree');

const log = (s: string) => process.stdout.write(`${s}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A service under test: this tree's ("after") or the older tree's ("before"), with its dub. */
interface Target {
  name: 'after' | 'before';
  svc: ServiceProcess;
  auth: { Authorization: string };
  /** The dub's address, once uploaded. */
  base: string;
}

/** CPU seconds of the service's whole process tree so far (its live festival and decoders included). */
const treeCpu = (t: Target) => processTreeCpuSeconds(t.svc.child.pid!);

/** Frames outside the regions that differ between two WAVs (compared run by run, not frame by frame). */
function changedOutside(a: Buffer, b: Buffer, regions: Array<{ start_frame: number; end_frame: number }>): number {
  const layout = parseWavHeader(a);
  const size = frameBytes(layout);
  const sorted = [...regions].sort((x, y) => x.start_frame - y.start_frame);
  let changed = 0;
  let from = 0;
  for (const span of [...sorted, { start_frame: layout.frames, end_frame: layout.frames }]) {
    const lo = layout.dataOffset + from * size;
    const hi = layout.dataOffset + span.start_frame * size;
    if (hi > lo && !a.subarray(lo, hi).equals(b.subarray(lo, hi))) {
      for (let f = from; f < span.start_frame; f++) {
        const at = layout.dataOffset + f * size;
        if (!a.subarray(at, at + size).equals(b.subarray(at, at + size))) changed++;
      }
    }
    from = Math.max(from, span.end_frame);
  }
  return changed;
}

async function startTarget(name: Target['name'], cwd?: string): Promise<Target> {
  const svc = await startServiceProcess({ cwd });
  return { name, svc, auth: { Authorization: `Bearer ${svc.key}` }, base: '' };
}

/** The recording the dub belongs to (a short take, so its own transcription is quick), then the dub. */
async function uploadDub(t: Target, master: string, lines: ReturnType<typeof referenceLines>): Promise<void> {
  const { svc, auth } = t;
  const session = new FormData();
  session.append('project_key', 'bench-dubbing');
  session.append('file', await fs.openAsBlob(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), 'take.flac');
  const sessionId = ((await (await fetch(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: session })).json()) as { id: string }).id;
  // One job lane: the recording's own transcription goes first.
  for (;;) {
    const s = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { headers: auth })).json()) as { status: string };
    if (s.status === 'complete' || s.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const form = new FormData();
  form.append('file', await fs.openAsBlob(master), 'dub.wav');
  form.append('lines', JSON.stringify(lines));
  form.append('voices', JSON.stringify({ S2: 'flite/rms' }));
  const started = Date.now();
  const created = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', headers: auth, body: form });
  if (created.status !== 201) throw new Error(`${t.name}: dub upload: ${created.status} ${await created.text()}`);
  const dubId = ((await created.json()) as { id: string }).id;
  t.base = `${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
  log(`  ${t.name}: ${lines.length} lines; upload and store: ${((Date.now() - started) / 1000).toFixed(2)} s (${(fs.statSync(master).size / 1e6).toFixed(0)} MB)`);
}

type Doc = {
  id: string;
  status: string;
  lines: Array<{ status: string; render: { region: { start_frame: number; end_frame: number }; flags: string[]; stretch: number } | null }>;
  revision: { number: number; audio: { url: string } } | null;
};

/** Corrects the chosen lines (a little differently each run) and revoices them; checks nothing else changed. */
async function revoiceRun(t: Target, run: number, chosen: number[], lines: ReturnType<typeof referenceLines>): Promise<Record<string, number>> {
  const { base, auth } = t;
  for (const id of chosen) {
    const words = lines[id - 1]!.text.replace(/[,.;:]+$/, '').split(' ');
    const text = `${words.slice(0, Math.max(3, words.length - 2 - run)).join(' ')}, ${['indeed', 'of course', 'as it were'][run % 3]}.`;
    await fetch(`${base}/lines/${id}`, { method: 'PATCH', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ text }) });
  }
  const cpuBefore = treeCpu(t);
  const started = Date.now();
  const res = await fetch(`${base}/revoice?wait=0`, { method: 'POST', headers: auth });
  let doc = (await res.json()) as Doc;
  let firstLine = 0;
  let lastLine = 0;
  while (doc.status !== 'complete' && doc.status !== 'failed') {
    await new Promise((r) => setTimeout(r, 100));
    doc = (await (await fetch(`${base}/revoices/${doc.id}`, { headers: auth })).json()) as Doc;
    const done = doc.lines.filter((l) => l.status === 'done').length;
    if (done >= 1 && !firstLine) firstLine = (Date.now() - started) / 1000;
    if (done === doc.lines.length && !lastLine) lastLine = (Date.now() - started) / 1000;
  }
  const wall = (Date.now() - started) / 1000;
  const cpu = treeCpu(t) - cpuBefore;
  if (doc.status !== 'complete') throw new Error(`${t.name}: revoice ${doc.status}`);
  const revisions = (await (await fetch(`${base}/revisions`, { headers: auth })).json()) as { data: Array<{ number: number; audio: { url: string } }> };
  const previous = revisions.data.find((r) => r.number === doc.revision!.number - 1)!;
  const [a, b] = await Promise.all([previous.audio.url, doc.revision!.audio.url].map(async (u) => Buffer.from(await (await fetch(u)).arrayBuffer())));
  const outside = changedOutside(a!, b!, doc.lines.map((l) => l.render!.region));
  const flags = doc.lines.flatMap((l) => l.render!.flags);
  log(
    `  ${t.name.padEnd(6)} run ${run + 1}: ${LINES} lines revoiced in ${wall.toFixed(2)} s wall (first line ${firstLine.toFixed(2)} s, all lines ${lastLine.toFixed(2)} s), CPU ${cpu.toFixed(2)} s; frames changed outside the regions: ${outside}`,
  );
  return { wall, first_line: firstLine, last_line: lastLine, cpu, changed_outside: outside, does_not_fit: flags.filter((f) => f === 'does_not_fit').length, stretched: flags.filter((f) => f === 'stretched').length };
}

/** Three takes of one line, waited for; wall and CPU seconds. */
async function takesRun(t: Target, id: number, words: number, voice: string): Promise<{ wall: number; cpu: number }> {
  const cpuBefore = treeCpu(t);
  const started = Date.now();
  const res = await fetch(`${t.base}/lines/${id}/takes?wait=120`, { method: 'POST', headers: { ...t.auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ count: 3 }) });
  const takes = ((await res.json()) as { data: Array<{ status: string }> }).data;
  const wall = (Date.now() - started) / 1000;
  const cpu = treeCpu(t) - cpuBefore;
  if (res.status !== 200 || takes.some((k) => k.status !== 'ready')) throw new Error(`${t.name}: takes: ${res.status} ${JSON.stringify(takes.map((k) => k.status))}`);
  log(`  ${t.name.padEnd(6)} three takes of line ${id} (${voice}, ${words} words): ${wall.toFixed(2)} s wall, CPU ${cpu.toFixed(2)} s (${(cpu / 3).toFixed(2)} s a take)`);
  return { wall, cpu };
}

/** One `/v1/audio/speech` request read to its end: time to the first byte of audio and to the last. */
async function speechOnce(t: Target, model: string, input: string, format: 'mp3' | 'pcm'): Promise<{ ttfb: number; total: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(`${t.svc.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { ...t.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, voice: 'alloy', input, response_format: format }),
  });
  const reader = res.body!.getReader();
  let first = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!first) first = performance.now() - t0;
    bytes += value.length;
  }
  return { ttfb: first, total: performance.now() - t0, bytes };
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-dubbing-'));
  const targets: Target[] = [await startTarget('after')];
  if (beforeTree) targets.push(await startTarget('before', path.resolve(beforeTree)));
  const [after] = targets as [Target];
  const results: Record<string, unknown> = { machine: `${os.cpus().length} cores (shared with other work while measured)`, node: process.version, host_at_start: hostNote() };
  const side: Record<string, Record<string, unknown>> = Object.fromEntries(targets.map((t) => [t.name, {}]));
  log(`${hostNote()}; services: ${targets.map((t) => (t.name === 'before' ? `before (${beforeTree})` : 'after (this tree)')).join(', ')}`);
  try {
    log(`dub: first ${SECONDS} s of read_speech_concat.flac as 48 kHz stereo 24-bit WAV`);
    const master = dubMaster(tmp, SECONDS, { rate: 48000, channels: 2, codec: 'pcm_s24le' });
    const lines = referenceLines(SECONDS);
    for (const t of targets) await uploadDub(t, master, lines);
    const step = Math.floor(lines.length / LINES);
    const chosen = Array.from({ length: LINES }, (_, i) => 1 + i * step);

    // ---- revoice: the services one after the other in each run ----
    const runs = new Map<Target, Array<Record<string, number>>>(targets.map((t) => [t, []]));
    for (let run = 0; run < RUNS; run++) for (const t of targets) runs.get(t)!.push(await revoiceRun(t, run, chosen, lines));
    for (const t of targets) {
      const r = runs.get(t)!;
      side[t.name]!.revoice = {
        dub_seconds: SECONDS,
        format: '48000 Hz, 2 channels, s24 WAV',
        lines_in_dub: lines.length,
        lines_revoiced: LINES,
        runs: r,
        median_wall_seconds: round(median(r.map((x) => x.wall!)), 2),
        median_seconds_per_line: round(median(r.map((x) => x.wall!)) / LINES, 3),
        median_cpu_seconds: round(median(r.map((x) => x.cpu!)), 2),
      };
      log(`${t.name}: revoice 10 lines of a ${SECONDS / 60}-minute dub: median ${median(r.map((x) => x.wall!)).toFixed(2)} s wall (${(median(r.map((x) => x.wall!)) / LINES).toFixed(2)} s a line), CPU ${median(r.map((x) => x.cpu!)).toFixed(2)} s`);
    }

    // ---- takes: of a line in festival's HTS voice (S1, the default voice) and of one in flite's rms (S2) ----
    const voices = [
      { key: 'takes', label: 'festival-hts/slt', offset: 2 },
      { key: 'takes_flite', label: 'flite/rms', offset: 1 },
    ] as const;
    for (const v of voices) {
      const takeRuns = new Map<Target, Array<{ wall: number; cpu: number }>>(targets.map((t) => [t, []]));
      for (let run = 0; run < RUNS; run++) {
        const id = chosen[run % chosen.length]! + v.offset;
        for (const t of targets) takeRuns.get(t)!.push(await takesRun(t, id, lines[id - 1]!.text.split(' ').length, v.label));
      }
      for (const t of targets) {
        const r = takeRuns.get(t)!;
        side[t.name]![v.key] = {
          voice: v.label,
          takes: 3,
          runs: r.map((x) => ({ wall: round(x.wall, 2), cpu: round(x.cpu, 2) })),
          median_wall_seconds: round(median(r.map((x) => x.wall)), 2),
          median_cpu_seconds: round(median(r.map((x) => x.cpu)), 2),
          median_cpu_seconds_per_take: round(median(r.map((x) => x.cpu)) / 3, 3),
        };
        log(`${t.name}: three takes of one line (${v.label}): median ${median(r.map((x) => x.wall)).toFixed(2)} s wall, CPU ${median(r.map((x) => x.cpu)).toFixed(2)} s (${(median(r.map((x) => x.cpu)) / 3).toFixed(2)} s a take)`);
      }
    }

    // ---- /v1/audio/speech ----
    const sentence = 'The quick brown fox jumps over the lazy dog near the river bank.';
    const paragraph =
      'Printing, in the only sense with which we are at present concerned, differs from most of the arts and crafts. ' +
      'The Chinese took impressions from wood blocks engraved in relief for centuries. ' +
      'The earliest book printed with movable types has never been surpassed. ' +
      'It is of the first importance that the letter used should be fine in form. ' +
      'The forms of printed letters should be beautiful, and their arrangement on the page reasonable.';
    const speech = new Map<Target, Array<Record<string, unknown>>>(targets.map((t) => [t, []]));
    log('\nPOST /v1/audio/speech (median of runs after one warm-up; time to first byte / to the end; audio length)');
    for (const model of SPEECH_RUNS > 0 ? ['festival-hts', 'svox-pico', 'festival-diphone', 'flite', 'espeak-ng'] : []) {
      // Only festival's engine differs between the trees.
      const asked = model === 'festival-hts' ? targets : [after];
      for (const [label, input] of [['sentence', sentence], ['paragraph', paragraph]] as const) {
        for (const format of ['mp3', 'pcm'] as const) {
          const samples = new Map<Target, Array<{ ttfb: number; total: number; bytes: number }>>(asked.map((t) => [t, []]));
          for (const t of asked) await speechOnce(t, model, input, format);
          for (let i = 0; i < SPEECH_RUNS; i++) for (const t of asked) samples.get(t)!.push(await speechOnce(t, model, input, format));
          for (const t of asked) {
            const got = samples.get(t)!;
            const pcmBytes = format === 'pcm' ? median(got.map((x) => x.bytes)) : null;
            const row = {
              model,
              input: label,
              format,
              ttfb_ms: Math.round(median(got.map((x) => x.ttfb))),
              total_ms: Math.round(median(got.map((x) => x.total))),
              audio_seconds: pcmBytes !== null ? round(pcmBytes / 48000, 2) : null,
            };
            speech.get(t)!.push(row);
            log(
              `  ${t.name.padEnd(6)} ${model.padEnd(13)} ${label.padEnd(9)} ${format.padEnd(4)} first byte ${String(row.ttfb_ms).padStart(5)} ms, end ${String(row.total_ms).padStart(5)} ms${row.audio_seconds !== null ? `, ${row.audio_seconds} s of audio` : ''}`,
            );
          }
        }
      }
    }
    for (const t of targets) side[t.name]!.speech = speech.get(t)!;

    if (beforeTree) {
      log('\nbefore | after, medians from the same run:');
      const pick = (name: string, f: (x: Record<string, unknown>) => unknown) => f(side[name]!);
      const rev = (x: Record<string, unknown>) => x.revoice as { median_wall_seconds: number; median_cpu_seconds: number };
      for (const v of voices) {
        const tak = (x: Record<string, unknown>) => x[v.key] as { median_wall_seconds: number; median_cpu_seconds_per_take: number };
        log(`  three takes (${v.label}): ${pick('before', (x) => tak(x).median_wall_seconds)} s wall, CPU ${pick('before', (x) => tak(x).median_cpu_seconds_per_take)} s a take | ${pick('after', (x) => tak(x).median_wall_seconds)} s wall, CPU ${pick('after', (x) => tak(x).median_cpu_seconds_per_take)} s a take`);
      }
      log(`  revoice 10 lines: ${pick('before', (x) => rev(x).median_wall_seconds)} s wall, CPU ${pick('before', (x) => rev(x).median_cpu_seconds)} s | ${pick('after', (x) => rev(x).median_wall_seconds)} s wall, CPU ${pick('after', (x) => rev(x).median_cpu_seconds)} s`);
      const rows = (name: string) => (side[name]!.speech as Array<{ model: string; input: string; format: string; ttfb_ms: number; total_ms: number }>).filter((r) => r.model === 'festival-hts');
      for (const [i, b] of rows('before').entries()) {
        const a = rows('after')[i]!;
        log(`  festival-hts ${b.input.padEnd(9)} ${b.format.padEnd(4)} first byte ${b.ttfb_ms} | ${a.ttfb_ms} ms, end ${b.total_ms} | ${a.total_ms} ms`);
      }
    }

    // ---- a dub from the recording, this tree only ----
    if (process.env.BENCH_DUBBING_FROM_RECORDING !== '0') {
      const { svc, auth } = after;
      const long = new FormData();
      long.append('project_key', 'bench-dubbing');
      long.append('file', await fs.openAsBlob(path.join(audioDir, 'long', 'read_speech_concat.flac')), 'read_speech_concat.flac');
      let started = Date.now();
      const longId = ((await (await fetch(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: long })).json()) as { id: string }).id;
      for (;;) {
        const s = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${longId}`, { headers: auth })).json()) as { status: string };
        if (s.status === 'complete' || s.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      const transcription = (Date.now() - started) / 1000;
      started = Date.now();
      const made = await fetch(`${svc.url}/v1/speech/transcriptions/${longId}/dubs`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'recording' }),
      });
      if (made.status !== 201) throw new Error(`dub from the recording: ${made.status} ${await made.text()}`);
      const fromId = ((await made.json()) as { id: string }).id;
      let dub: { status: string; lines: { total: number } };
      for (;;) {
        dub = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${longId}/dubs/${fromId}`, { headers: auth })).json()) as typeof dub;
        if (dub.status !== 'preparing') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const ready = (Date.now() - started) / 1000;
      if (dub.status !== 'ready') throw new Error(`dub from the recording: ${dub.status}`);
      results.from_recording = { recording_seconds: 827.6, transcription_seconds: round(transcription, 1), ready_seconds: round(ready, 2), lines: dub.lines.total };
      log(`dub from the recording (long/, 827.6 s): ready ${ready.toFixed(2)} s after the request (${dub.lines.total} lines); its transcription took ${transcription.toFixed(1)} s`);
    }
    Object.assign(results, side.after);
    if (beforeTree) results.before = { tree: beforeTree, ...side.before };
    results.host_at_end = hostNote();
    log(`\n${hostNote()}\nwritten to ${writeResult('dubbing.json', JSON.stringify(results, null, 2))}`);
  } finally {
    for (const t of targets) await t.svc.stop();
    for (const t of targets) fs.rmSync(t.svc.dataDir, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
