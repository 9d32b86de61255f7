/**
 * Dubbing benchmark.
 *
 * 1. Revoicing 10 lines of a 10-minute dub: the first 10 minutes of ../shared/audio/long (real read speech,
 *    with its reference segments as the dub's lines) as a 48 kHz stereo 24-bit master; 10 lines spread over
 *    it are corrected (two speakers: festival's HTS voice and flite's rms) and revoiced through the API,
 *    BENCH_DUBBING_RUNS times (each run corrects them again and builds on the previous revision). Reports
 *    wall time to the new revision, time to the first and last line rendered, the service's CPU seconds
 *    (its own and its finished children: festival, ffmpeg), and checks every frame outside the lines'
 *    regions is unchanged.
 * 2. `POST /v1/audio/speech` latency to first byte and to the last, per engine, for one sentence and for a
 *    paragraph, in mp3 and pcm (BENCH_DUBBING_SPEECH_RUNS each, after a warm-up request).
 *
 * 3. Three takes of one line (`POST …/lines/{id}/takes {"count":3}`: the line's voice at its own speed, 0.9
 *    and 1.1), BENCH_DUBBING_RUNS times on different lines of the same dub: wall time until all are rendered.
 * 4. A dub from the recording (`{"source":"recording"}`) of ../shared/audio/long: its transcription time, then
 *    the time from the request to the dub being ready (BENCH_DUBBING_FROM_RECORDING=0 skips it).
 *
 * Env: BENCH_DUBBING_RUNS (3), BENCH_DUBBING_SPEECH_RUNS (5; 0 skips part 2), BENCH_DUBBING_SECONDS (600),
 * BENCH_DUBBING_FROM_RECORDING (1). The service renders TAKELINE_DUB_RENDER_PARALLEL lines at once (2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService } from '../../test/e2e/service-process';
import { audioDir, modelsDir } from '../../test/helpers/paths';
import { dubMaster, referenceLines } from '../../test/helpers/dubs';
import { frameBytes, parseWavHeader } from '../../src/service/media/wav';

const RUNS = Number(process.env.BENCH_DUBBING_RUNS ?? 3);
const SPEECH_RUNS = Number(process.env.BENCH_DUBBING_SPEECH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_DUBBING_SECONDS ?? 600);
const LINES = 10;

const log = (s: string) => process.stdout.write(`${s}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** CPU seconds of a process and its waited-for children (/proc/<pid>/stat fields 14–17). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]) / 100, 0);
}

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

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-dubbing-'));
  const service = await startService({ env: { TAKELINE_MODELS_DIR: modelsDir } });
  const key = fs.readFileSync(path.join(service.dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
  const pid = Number(fs.readFileSync(path.join(service.dataDir, 'service.lock'), 'utf8').trim());
  const auth = { Authorization: `Bearer ${key}` };
  const results: Record<string, unknown> = { machine: `${os.cpus().length} cores (shared with other work while measured)`, node: process.version };
  try {
    log(`dub: first ${SECONDS} s of read_speech_concat.flac as 48 kHz stereo 24-bit WAV`);
    const master = dubMaster(tmp, SECONDS, { rate: 48000, channels: 2, codec: 'pcm_s24le' });
    const lines = referenceLines(SECONDS);
    const session = new FormData();
    session.append('project_key', 'bench-dubbing');
    // The recording the dub belongs to: a short take, so its own transcription job is quick.
    session.append('file', await fs.openAsBlob(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), 'take.flac');
    const sessionId = ((await (await fetch(`${service.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: session })).json()) as { id: string }).id;
    // One job lane: the recording's own transcription goes first.
    for (;;) {
      const s = (await (await fetch(`${service.url}/v1/speech/transcriptions/${sessionId}`, { headers: auth })).json()) as { status: string };
      if (s.status === 'complete' || s.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const form = new FormData();
    form.append('file', await fs.openAsBlob(master), 'dub.wav');
    form.append('lines', JSON.stringify(lines));
    form.append('voices', JSON.stringify({ S2: 'flite/rms' }));
    let started = Date.now();
    const created = await fetch(`${service.url}/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', headers: auth, body: form });
    if (created.status !== 201) throw new Error(`dub upload: ${created.status} ${await created.text()}`);
    const dubId = ((await created.json()) as { id: string }).id;
    const uploadSeconds = (Date.now() - started) / 1000;
    log(`  ${lines.length} lines; upload and store: ${uploadSeconds.toFixed(2)} s (${(fs.statSync(master).size / 1e6).toFixed(0)} MB)`);
    const base = `${service.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
    const step = Math.floor(lines.length / LINES);
    const chosen = Array.from({ length: LINES }, (_, i) => 1 + i * step);

    const runs: Array<Record<string, number>> = [];
    for (let run = 0; run < RUNS; run++) {
      for (const id of chosen) {
        const words = lines[id - 1]!.text.replace(/[,.;:]+$/, '').split(' ');
        const text = `${words.slice(0, Math.max(3, words.length - 2 - run)).join(' ')}, ${['indeed', 'of course', 'as it were'][run % 3]}.`;
        await fetch(`${base}/lines/${id}`, { method: 'PATCH', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ text }) });
      }
      const cpuBefore = cpuSeconds(pid);
      started = Date.now();
      const res = await fetch(`${base}/revoice?wait=0`, { method: 'POST', headers: auth });
      let doc = (await res.json()) as { id: string; status: string; lines: Array<{ status: string; render: { region: { start_frame: number; end_frame: number }; flags: string[]; stretch: number } | null }>; revision: { number: number; audio: { url: string } } | null };
      let firstLine = 0;
      let lastLine = 0;
      while (doc.status !== 'complete' && doc.status !== 'failed') {
        await new Promise((r) => setTimeout(r, 100));
        doc = (await (await fetch(`${base}/revoices/${doc.id}`, { headers: auth })).json()) as typeof doc;
        const done = doc.lines.filter((l) => l.status === 'done').length;
        if (done >= 1 && !firstLine) firstLine = (Date.now() - started) / 1000;
        if (done === doc.lines.length && !lastLine) lastLine = (Date.now() - started) / 1000;
      }
      const wall = (Date.now() - started) / 1000;
      const cpu = cpuSeconds(pid) - cpuBefore;
      if (doc.status !== 'complete') throw new Error(`revoice ${doc.status}`);
      const revisions = (await (await fetch(`${base}/revisions`, { headers: auth })).json()) as { data: Array<{ number: number; audio: { url: string } }> };
      const previous = revisions.data.find((r) => r.number === doc.revision!.number - 1)!;
      const [a, b] = await Promise.all([previous.audio.url, doc.revision!.audio.url].map(async (u) => Buffer.from(await (await fetch(u)).arrayBuffer())));
      const outside = changedOutside(a!, b!, doc.lines.map((l) => l.render!.region));
      const flags = doc.lines.flatMap((l) => l.render!.flags);
      runs.push({ wall, first_line: firstLine, last_line: lastLine, cpu, changed_outside: outside, does_not_fit: flags.filter((f) => f === 'does_not_fit').length, stretched: flags.filter((f) => f === 'stretched').length });
      log(
        `  run ${run + 1}: ${LINES} lines revoiced in ${wall.toFixed(2)} s wall (first line ${firstLine.toFixed(2)} s, all lines ${lastLine.toFixed(2)} s), service CPU ${cpu.toFixed(2)} s; frames changed outside the regions: ${outside}`,
      );
    }
    results.revoice = {
      dub_seconds: SECONDS,
      format: '48000 Hz, 2 channels, s24 WAV',
      lines_in_dub: lines.length,
      lines_revoiced: LINES,
      upload_seconds: round(uploadSeconds, 2),
      runs,
      median_wall_seconds: round(median(runs.map((r) => r.wall!)), 2),
      median_seconds_per_line: round(median(runs.map((r) => r.wall!)) / LINES, 3),
      median_cpu_seconds: round(median(runs.map((r) => r.cpu!)), 2),
    };
    log(`revoice 10 lines of a ${SECONDS / 60}-minute dub: median ${median(runs.map((r) => r.wall!)).toFixed(2)} s (${(median(runs.map((r) => r.wall!)) / LINES).toFixed(2)} s a line), CPU ${median(runs.map((r) => r.cpu!)).toFixed(2)} s`);

    // ---- takes (issue 32) ----
    const takeRuns: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const id = chosen[run % chosen.length]! + 1;
      started = Date.now();
      const res = await fetch(`${base}/lines/${id}/takes?wait=120`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ count: 3 }) });
      const takes = ((await res.json()) as { data: Array<{ status: string }> }).data;
      const wall = (Date.now() - started) / 1000;
      if (res.status !== 200 || takes.some((t) => t.status !== 'ready')) throw new Error(`takes: ${res.status} ${JSON.stringify(takes.map((t) => t.status))}`);
      takeRuns.push(wall);
      log(`  three takes of line ${id} (${lines[id - 1]!.text.split(' ').length} words): ${wall.toFixed(2)} s`);
    }
    results.takes = { takes: 3, runs: takeRuns.map((w) => round(w, 2)), median_wall_seconds: round(median(takeRuns), 2) };
    log(`three takes of one line: median ${median(takeRuns).toFixed(2)} s`);

    // ---- a dub from the recording (issue 32) ----
    if (process.env.BENCH_DUBBING_FROM_RECORDING !== '0') {
      const long = new FormData();
      long.append('project_key', 'bench-dubbing');
      long.append('file', await fs.openAsBlob(path.join(audioDir, 'long', 'read_speech_concat.flac')), 'read_speech_concat.flac');
      started = Date.now();
      const longId = ((await (await fetch(`${service.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: long })).json()) as { id: string }).id;
      for (;;) {
        const s = (await (await fetch(`${service.url}/v1/speech/transcriptions/${longId}`, { headers: auth })).json()) as { status: string };
        if (s.status === 'complete' || s.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      const transcription = (Date.now() - started) / 1000;
      started = Date.now();
      const made = await fetch(`${service.url}/v1/speech/transcriptions/${longId}/dubs`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'recording' }),
      });
      if (made.status !== 201) throw new Error(`dub from the recording: ${made.status} ${await made.text()}`);
      const fromId = ((await made.json()) as { id: string }).id;
      let dub: { status: string; lines: { total: number } };
      for (;;) {
        dub = (await (await fetch(`${service.url}/v1/speech/transcriptions/${longId}/dubs/${fromId}`, { headers: auth })).json()) as typeof dub;
        if (dub.status !== 'preparing') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const ready = (Date.now() - started) / 1000;
      if (dub.status !== 'ready') throw new Error(`dub from the recording: ${dub.status}`);
      results.from_recording = { recording_seconds: 827.6, transcription_seconds: round(transcription, 1), ready_seconds: round(ready, 2), lines: dub.lines.total };
      log(`dub from the recording (long/, 827.6 s): ready ${ready.toFixed(2)} s after the request (${dub.lines.total} lines); its transcription took ${transcription.toFixed(1)} s`);
    }

    // ---- /v1/audio/speech ----
    const sentence = 'The quick brown fox jumps over the lazy dog near the river bank.';
    const paragraph =
      'Printing, in the only sense with which we are at present concerned, differs from most of the arts and crafts. ' +
      'The Chinese took impressions from wood blocks engraved in relief for centuries. ' +
      'The earliest book printed with movable types has never been surpassed. ' +
      'It is of the first importance that the letter used should be fine in form. ' +
      'The forms of printed letters should be beautiful, and their arrangement on the page reasonable.';
    const speech: Array<Record<string, unknown>> = [];
    log('\nPOST /v1/audio/speech (median of runs after one warm-up; time to first byte / to the end; audio length)');
    for (const model of SPEECH_RUNS > 0 ? ['festival-hts', 'svox-pico', 'flite', 'espeak-ng'] : []) {
      for (const [label, input] of [['sentence', sentence], ['paragraph', paragraph]] as const) {
        for (const format of ['mp3', 'pcm'] as const) {
          const one = async () => {
            const t0 = performance.now();
            const res = await fetch(`${service.url}/v1/audio/speech`, {
              method: 'POST',
              headers: { ...auth, 'Content-Type': 'application/json' },
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
          };
          await one();
          const samples = [];
          for (let i = 0; i < SPEECH_RUNS; i++) samples.push(await one());
          const pcmBytes = format === 'pcm' ? median(samples.map((s) => s.bytes)) : null;
          const row = {
            model,
            input: label,
            format,
            ttfb_ms: Math.round(median(samples.map((s) => s.ttfb))),
            total_ms: Math.round(median(samples.map((s) => s.total))),
            audio_seconds: pcmBytes !== null ? round(pcmBytes / 48000, 2) : null,
          };
          speech.push(row);
          log(`  ${model.padEnd(13)} ${label.padEnd(9)} ${format.padEnd(4)} first byte ${String(row.ttfb_ms).padStart(5)} ms, end ${String(row.total_ms).padStart(5)} ms${row.audio_seconds !== null ? `, ${row.audio_seconds} s of audio` : ''}`);
        }
      }
    }
    results.speech = speech;
    fs.mkdirSync(path.join(import.meta.dirname, '..', 'results'), { recursive: true });
    fs.writeFileSync(path.join(import.meta.dirname, '..', 'results', 'dubbing.json'), JSON.stringify(results, null, 2));
    log('\nwritten to bench/results/dubbing.json');
  } finally {
    await service.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
