/**
 * Latency of `POST /v1/audio/transcriptions` for a tool sending clips.
 *
 * 1. A 9.7-s held-out clip (asr/ljspeech_LJ001-0001) and the first 60 s of long/ (real read speech), json,
 *    BENCH_OPENAI_RUNS times each after a warm-up call: wall time from the request to the answer, and the CPU
 *    seconds the service's whole process tree spent meanwhile (its decoders, ffmpeg, ffprobe and the background
 *    work earlier calls left: from /proc, so independent of the machine's load).
 * 2. BENCH_OPENAI_SERIES calls in a row of the 9.7-s clip, each kept (analysis and adaptation queued after it and
 *    left running): the 5th against the last.
 * 3. The 60-s clip with `stream=true`: the time from the upload's last byte to the first
 *    `transcript.text.delta`, the number of deltas, and the time to `transcript.text.done`.
 * 4. With `store=false` (this tree only; an older tree keeps the call whatever it is sent): the 9.7-s clip's wall
 *    and CPU seconds, nothing left behind.
 *
 * With --before-tree DIR (an older tree, e.g. `git worktree add DIR <commit>` beside a node_modules link), a
 * second service runs from it and every step goes to both, one request after the other, so both see the same
 * load; columns side by side. Every answer's text is compared between the trees (they must be equal).
 *
 *   node --import tsx bench/openai-route-latency.ts [--before-tree DIR]
 *
 * Env: BENCH_OPENAI_RUNS (5), BENCH_OPENAI_LONG_RUNS (the 60-s clip's; BENCH_OPENAI_RUNS), BENCH_OPENAI_SERIES (51; 0
 * skips part 2), BENCH_OPENAI_STREAMS (5).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServiceProcess, type ServiceProcess } from '../test/helpers/service';
import { audioDir } from '../test/helpers/paths';
import { tempDir } from '../test/helpers/temp';
import { processTreeCpuSeconds } from './team/tree-cpu';
import { flagValue } from './lib/args';
import { hostNote } from './lib/read-load';
import { writeResult } from './lib/results';

const RUNS = Number(process.env.BENCH_OPENAI_RUNS ?? 5);
const LONG_RUNS = Number(process.env.BENCH_OPENAI_LONG_RUNS ?? RUNS);
const SERIES = Number(process.env.BENCH_OPENAI_SERIES ?? 51);
const STREAMS = Number(process.env.BENCH_OPENAI_STREAMS ?? 5);
const beforeTree = flagValue('--before-tree');

const log = (s: string) => process.stdout.write(`${s}\n`);
const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Target {
  name: 'after' | 'before';
  svc: ServiceProcess;
}

interface Call {
  /** Seconds from the request's start to the answer's last byte. */
  wall: number;
  /** Seconds from the upload's last byte to the first delta (streams). */
  firstDelta: number | null;
  /** Seconds from the upload's last byte to each delta, in order (streams). */
  deltas: number[];
  text: string;
  cpu: number;
  status: number;
}

/** One call: the multipart form sent whole, then the answer read as it arrives (SSE events timed). */
function call(t: Target, file: string, fields: Record<string, string>): Promise<Call> {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries({ model: 'whisper-1', ...fields })) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  parts.push(fs.readFileSync(file), Buffer.from(`\r\n--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const target = new URL(`${t.svc.url}/v1/audio/transcriptions`);
  const cpu0 = processTreeCpuSeconds(t.svc.child.pid!);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let uploaded = started;
    const deltas: number[] = [];
    let text = '';
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { Authorization: `Bearer ${t.svc.key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length },
      },
      (res) => {
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          if (!fields.stream) return;
          let at: number;
          while ((at = buffered.indexOf('\n\n')) >= 0) {
            const event = buffered.slice(0, at);
            buffered = buffered.slice(at + 2);
            if (!event.startsWith('data: ')) continue;
            const parsed = JSON.parse(event.slice(6)) as { type: string; delta?: string; text?: string };
            if (parsed.type === 'transcript.text.delta') deltas.push((performance.now() - uploaded) / 1000);
            if (parsed.type === 'transcript.text.done') text = parsed.text ?? '';
          }
        });
        res.on('end', () => {
          const wall = (performance.now() - started) / 1000;
          if (!fields.stream) text = res.statusCode === 200 ? ((JSON.parse(buffered) as { text: string }).text ?? '') : buffered;
          resolve({ wall, firstDelta: deltas[0] ?? null, deltas, text, cpu: processTreeCpuSeconds(t.svc.child.pid!) - cpu0, status: res.statusCode! });
        });
      },
    );
    req.on('error', reject);
    req.end(body, () => {
      uploaded = performance.now();
    });
  });
}

/** Runs `fn` against each target in turn (same load for both), `n` times; the calls per target. */
async function sideBySide(targets: Target[], n: number, fn: (t: Target, i: number) => Promise<Call>): Promise<Map<string, Call[]>> {
  const out = new Map<string, Call[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < n; i++) {
    for (const t of targets) {
      const c = await fn(t, i);
      if (c.status !== 200) throw new Error(`${t.name}: ${c.status} ${c.text.slice(0, 300)}`);
      out.get(t.name)!.push(c);
    }
  }
  return out;
}

function row(label: string, targets: Target[], value: (t: Target) => string): string {
  return `  ${label.padEnd(44)}${targets.map((t) => value(t).padStart(16)).join('')}`;
}

/** The texts of each target's calls must be the same as the first target's. */
function sameTexts(results: Map<string, Call[]>, what: string): string[] {
  const lists = [...results.values()].map((calls) => calls.map((c) => c.text));
  const problems: string[] = [];
  for (const list of lists) for (const text of list) if (text !== lists[0]![0]) problems.push(`${what}: "${text.slice(0, 80)}…" differs from "${lists[0]![0]!.slice(0, 80)}…"`);
  return problems;
}

async function main(): Promise<void> {
  const work = tempDir('takeline-bench-openai-');
  const short = path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac');
  const long = path.join(work, 'long-60s.flac');
  const longSource = fs.readdirSync(path.join(audioDir, 'long')).find((f) => /\.(flac|wav)$/.test(f))!;
  const cut = spawnSync('ffmpeg', ['-v', 'error', '-y', '-i', path.join(audioDir, 'long', longSource), '-t', '60', '-ac', '1', '-ar', '16000', long]);
  if (cut.status !== 0) throw new Error(`ffmpeg: ${cut.stderr}`);

  log(`openai-route latency: ${hostNote()}`);
  const targets: Target[] = [{ name: 'after', svc: await startServiceProcess() }];
  if (beforeTree) targets.push({ name: 'before', svc: await startServiceProcess({ cwd: path.resolve(beforeTree) }) });
  const lines: string[] = [];
  const problems: string[] = [];
  const say = (s: string) => {
    lines.push(s);
    log(s);
  };
  try {
    say(row('', targets, (t) => t.name));
    // Warm-up: the decoders, models and the diarizer's thread start on first use.
    await sideBySide(targets, 1, (t) => call(t, short, {}));

    const nine = await sideBySide(targets, RUNS, (t) => call(t, short, {}));
    problems.push(...sameTexts(nine, '9.7-s clip'));
    say(row(`9.7-s clip, json: median wall s (of ${RUNS})`, targets, (t) => r2(median(nine.get(t.name)!.map((c) => c.wall))).toFixed(2)));
    say(row('  median tree CPU s per call', targets, (t) => r2(median(nine.get(t.name)!.map((c) => c.cpu))).toFixed(2)));

    const sixty = await sideBySide(targets, LONG_RUNS, (t) => call(t, long, {}));
    problems.push(...sameTexts(sixty, '60-s clip'));
    say(row(`60-s clip, json: median wall s (of ${LONG_RUNS})`, targets, (t) => r2(median(sixty.get(t.name)!.map((c) => c.wall))).toFixed(2)));
    say(row('  median tree CPU s per call', targets, (t) => r2(median(sixty.get(t.name)!.map((c) => c.cpu))).toFixed(2)));

    const streams = await sideBySide(targets, STREAMS, (t) => call(t, long, { stream: 'true' }));
    problems.push(...sameTexts(streams, '60-s stream'));
    say(row(`60-s stream: first delta after upload, s (of ${STREAMS})`, targets, (t) => r2(median(streams.get(t.name)!.map((c) => c.firstDelta ?? NaN))).toFixed(2)));
    say(row('  deltas per stream (median)', targets, (t) => String(median(streams.get(t.name)!.map((c) => c.deltas.length)))));
    say(row('  done after upload, s', targets, (t) => r2(median(streams.get(t.name)!.map((c) => c.deltas.at(-1) ?? NaN))).toFixed(2)));
    say(row('  first delta / done, share', targets, (t) => r2(median(streams.get(t.name)!.map((c) => (c.firstDelta ?? NaN) / (c.deltas.at(-1) ?? NaN)))).toFixed(2)));

    if (targets[0]!.name === 'after') {
      const unkept = await sideBySide([targets[0]!], RUNS, (t) => call(t, short, { store: 'false' }));
      problems.push(...sameTexts(new Map([['after', [...nine.get('after')!.slice(0, 1), ...unkept.get('after')!]]]), 'store=false'));
      say(row(`9.7-s clip, store=false: median wall s`, [targets[0]!], () => r2(median(unkept.get('after')!.map((c) => c.wall))).toFixed(2)));
      say(row('  median tree CPU s per call', [targets[0]!], () => r2(median(unkept.get('after')!.map((c) => c.cpu))).toFixed(2)));
    }

    if (SERIES > 0) {
      const series = await sideBySide(targets, SERIES, (t) => call(t, short, {}));
      problems.push(...sameTexts(series, 'series'));
      say(row(`series of ${SERIES}: 5th call wall s`, targets, (t) => series.get(t.name)![4]!.wall.toFixed(2)));
      say(row(`  last call wall s`, targets, (t) => series.get(t.name)!.at(-1)!.wall.toFixed(2)));
      say(row(`  median of calls 3–7 / of the last 5`, targets, (t) => {
        const w = series.get(t.name)!.map((c) => c.wall);
        return `${median(w.slice(2, 7)).toFixed(2)}/${median(w.slice(-5)).toFixed(2)}`;
      }));
      say(row(`  tree CPU s of the whole series`, targets, (t) => series.get(t.name)!.reduce((s, c) => s + c.cpu, 0).toFixed(1)));
    }
    say(problems.length ? `TEXTS DIFFER:\n${problems.join('\n')}` : 'texts: identical across calls and trees');
  } finally {
    for (const t of targets) await t.svc.stop();
  }
  log(writeResult('openai-route-latency.txt', `${hostNote()}\n${lines.join('\n')}\n`));
}

await main();
