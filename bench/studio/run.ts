/**
 * Studio benchmark: time to interactive of a 1-hour recording's view in Chromium (target ≤ 2 s).
 * Builds a 1-hour FLAC by looping a real recording (../shared/audio/long) with ffmpeg in a temp dir,
 * uploads it to a fresh `npm run serve`, waits for transcription, then opens the recording view several
 * times and reads the `takeline:interactive` performance mark (waveform drawn from peaks, transcript
 * laid out, keys bound), measured from navigation start.
 *
 * Env: BENCH_STUDIO_SECONDS (default 3600), BENCH_STUDIO_RUNS (default 5), BENCH_STUDIO_TIMEOUT_MIN (default 180).
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveMediaTools } from '../../src/service/media/tools';
import { launchChromium } from '../../test/e2e/browser';
import { buildStudio } from '../../test/e2e/build-studio';
import { repoRoot, sharedDir, startService } from '../../test/e2e/service-process';

const SECONDS = Number(process.env.BENCH_STUDIO_SECONDS ?? 3600);
const RUNS = Number(process.env.BENCH_STUDIO_RUNS ?? 5);
const TIMEOUT_MS = Number(process.env.BENCH_STUDIO_TIMEOUT_MIN ?? 180) * 60_000;
const TARGET_MS = 2000;

const log = (s: string) => process.stdout.write(`${s}\n`);

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-studio-'));
  const source = path.join(sharedDir(), 'audio/long/read_speech_concat.flac');
  const file = path.join(tmp, `hour_${SECONDS}s.flac`);
  const { ffmpeg } = resolveMediaTools();
  log(`building a ${SECONDS} s recording by looping ${path.relative(repoRoot, source)}…`);
  const made = spawnSync(
    'nice',
    [
      '-n',
      '10',
      ffmpeg,
      '-hide_banner',
      '-loglevel',
      'error',
      '-stream_loop',
      '-1',
      '-i',
      source,
      '-t',
      String(SECONDS),
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'flac',
      '-y',
      file,
    ],
    { stdio: 'inherit' },
  );
  if (made.status !== 0) throw new Error('ffmpeg failed');
  log(`  ${(fs.statSync(file).size / 1e6).toFixed(1)} MB`);

  log('building the studio…');
  await buildStudio();

  // A key for this run only: letters and digits, as the service requires.
  const apiKey = `tl_${crypto.randomBytes(32).toString('hex')}`;
  const service = await startService({
    env: { TAKELINE_API_KEY: apiKey, TAKELINE_MAX_UPLOAD_BYTES: String(2 ** 31) },
  });
  const auth = { Authorization: `Bearer ${apiKey}` };
  const browser = await launchChromium().catch(async (e: unknown) => {
    await service.stop();
    throw e;
  });
  try {
    const form = new FormData();
    form.append('project_key', 'bench-studio');
    form.append('project_name', 'Studio benchmark');
    form.append('file', await fs.openAsBlob(file, { type: 'audio/flac' }), path.basename(file));
    const uploadStart = Date.now();
    const created = await fetch(`${service.url}/v1/speech/transcriptions`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    if (created.status !== 201) throw new Error(`upload: HTTP ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    log(
      `uploaded in ${((Date.now() - uploadStart) / 1000).toFixed(1)} s; session ${id}; waiting for transcription…`,
    );

    const processStart = Date.now();
    let lastLog = 0;
    for (;;) {
      // The service can be briefly unresponsive while a job runs; a failed poll is retried, not fatal.
      const s = await fetch(`${service.url}/v1/speech/transcriptions/${id}`, {
        headers: auth,
        signal: AbortSignal.timeout(30_000),
      })
        .then((r) => r.json() as Promise<{ status: string; progress: number; error: string | null }>)
        .catch((e: unknown) => ({
          status: `unreachable (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`,
          progress: 0,
          error: null,
        }));
      if (s.status === 'complete') break;
      if (!service.isRunning()) throw new Error('the service exited during transcription');
      if (s.status === 'failed') throw new Error(`transcription failed: ${s.error}`);
      if (Date.now() - processStart > TIMEOUT_MS)
        throw new Error(`transcription not complete after ${TIMEOUT_MS / 60000} min`);
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        log(
          `  ${s.status} ${(s.progress * 100).toFixed(0)}% after ${((Date.now() - processStart) / 1000).toFixed(0)} s`,
        );
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
    const processSeconds = (Date.now() - processStart) / 1000;
    const session = (await (
      await fetch(`${service.url}/v1/speech/transcriptions/${id}`, { headers: auth })
    ).json()) as {
      transcript: { segments: { words: unknown[] }[] };
    };
    const segments = session.transcript.segments.length;
    const words = session.transcript.segments.reduce((n, s) => n + s.words.length, 0);
    const peaksRes = await fetch(`${service.url}/v1/speech/transcriptions/${id}/peaks`, { headers: auth });
    const peaksBytes = (await peaksRes.arrayBuffer()).byteLength;
    log(
      `transcribed in ${processSeconds.toFixed(0)} s: ${segments} segments, ${words} words; peaks ${(peaksBytes / 1e6).toFixed(2)} MB`,
    );

    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    const tti: number[] = [];
    const keyLatency: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // about:blank in between, so each run is a full page load of the view.
      await page.goto('about:blank');
      await page.goto(`${service.url}/#/recordings/${id}`);
      await page.waitForFunction(() => document.documentElement.dataset.interactive === 'true', null, {
        timeout: 60_000,
      });
      tti.push(await page.evaluate(() => performance.getEntriesByName('takeline:interactive')[0]!.startTime));
      // Responsiveness once interactive: End jumps to the end; time until the readout shows it.
      const before = await page.getByTestId('readout').textContent();
      const t0 = Date.now();
      await page.keyboard.press('End');
      await page.waitForFunction(
        (b) => document.querySelector('[data-testid=readout]')?.textContent !== b,
        before,
      );
      keyLatency.push(Date.now() - t0);
    }
    fs.mkdirSync(path.join(repoRoot, 'test-artifacts/screenshots'), { recursive: true });
    await page.screenshot({
      path: path.join(repoRoot, 'test-artifacts/screenshots/bench-hour-recording.png'),
    });

    const sorted = [...tti].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const results = {
      recording_seconds: SECONDS,
      segments,
      words,
      peaks_bytes: peaksBytes,
      transcription_seconds: Math.round(processSeconds),
      tti_ms: tti.map((t) => Math.round(t)),
      tti_median_ms: Math.round(median),
      tti_target_ms: TARGET_MS,
      end_key_latency_ms: keyLatency,
    };
    log('\nstudio: time to interactive of the recording view');
    log(`  runs (ms):            ${results.tti_ms.join(', ')}`);
    log(
      `  median:               ${results.tti_median_ms} ms (target ≤ ${TARGET_MS} ms): ${median <= TARGET_MS ? 'MET' : 'MISSED'}`,
    );
    log(`  End key → readout:    ${keyLatency.join(', ')} ms`);
    fs.mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(repoRoot, 'bench/results/studio.json'),
      `${JSON.stringify(results, null, 2)}\n`,
    );
  } catch (error) {
    process.stderr.write(`service output (tail):\n${service.output().slice(-3000)}\n`);
    throw error;
  } finally {
    await browser.close();
    await service.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench/studio: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
