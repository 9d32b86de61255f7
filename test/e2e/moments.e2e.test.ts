/**
 * The studio's delivery and moment markers, speaker and summary panels, and the analysis exports, end to
 * end: the real service (`npm run serve` with the shared models), a real multi-speaker recording built for
 * the test (three readers taking turns, one line driven into clipping), Debian's Chromium. After the whole
 * analysis has run (measures, listening, speakers, moments, summary), checks against the document the
 * service serves: every moment and delivery label drawn in its lane at its time, the legend's filters
 * hiding and showing them, the hover card giving the reason, a click selecting the span; the summary's
 * watch-out ranges moving the playhead; each speaker's arc with a point per line that jumps to it; the
 * selects EDL and analysis CSV downloading and reading back. Screenshots go to test-artifacts/screenshots/.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisDocument, type Intelligence } from '../../src/shared/schemas/analysis';
import { formatReadout } from '../../src/renderer/src/lib/timecode';
import { ANALYSIS_CSV_COLUMNS } from '../../src/service/export/analysis-csv';
import { parseCsv } from '../../src/service/export/testing/csv';
import { parseEdl } from '../../src/service/export/testing/edl';
import { CHROMIUM } from './browser';
import { MONO, renderRecording, silence } from './recording';
import { sharedDir, type RunningService } from './service-process';
import { markerPosition, openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';

const audio = path.join(sharedDir(), 'audio', 'asr');

/** Three readers taking turns: LJSpeech (A), the amateur desk-mic readings (B), LibriSpeech 1089 (C). */
const LINES = [
  { file: 'ljspeech_LJ001-0004.flac', gain: 0 },
  { file: 'amateur_LJ001-0010.flac', gain: 0 },
  { file: 'librispeech_test_clean_1089-134686-0000.flac', gain: 0 },
  // 12 dB of gain: the loud syllables clip when written as 16-bit samples.
  { file: 'ljspeech_LJ001-0006.flac', gain: 12 },
  { file: 'amateur_LJ001-0035.flac', gain: 0 },
  { file: 'librispeech_test_clean_1089-134691-0000.flac', gain: 0 },
];
const GAP = 0.9;

const canRun =
  fs.existsSync(CHROMIUM) &&
  LINES.every((l) => fs.existsSync(path.join(audio, l.file))) &&
  spawnSync('ffmpeg', ['-version']).status === 0;

function buildRecording(dir: string): string {
  const graph: string[] = [];
  const labels: string[] = [];
  LINES.forEach((l, i) => {
    graph.push(`[${i}:a]${MONO}${l.gain ? `,volume=${l.gain}dB` : ''}[l${i}]`, silence(`g${i}`, GAP));
    labels.push(`[l${i}][g${i}]`);
  });
  graph.push(`${labels.join('')}concat=n=${LINES.length * 2}:v=0:a=1[speech]`);
  return renderRecording(
    path.join(dir, 'three readers.flac'),
    LINES.map((l) => path.join(audio, l.file)),
    graph,
  );
}

describe.skipIf(!canRun)('studio delivery and moment markers end to end', { timeout: 900_000 }, () => {
  let f: StudioFixture;
  let service: RunningService;
  let page: Page;
  let key = '';
  let sessionId = '';
  let intel: Intelligence;
  let downloads = '';
  const shot = (name: string) => f.shot(name);
  const markers = (selector = '') => page.locator(`[data-testid=marker]${selector}`);
  const t = (s: number) => formatReadout(s, null);

  /** The delivery labels the studio draws for a line: perception's labels, then any other flag types. */
  function deliveryKinds(seg: Intelligence['segments'][number]): string[] {
    const kinds = new Set<string>(seg.perception?.delivery ?? []);
    for (const f of seg.delivery?.flags ?? []) kinds.add(f.type);
    return [...kinds].map((k) => `delivery.${k}`);
  }

  async function download(format: string): Promise<{ name: string; body: string }> {
    await page.getByRole('button', { name: /Export/ }).click();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`[data-format=${format}]`).click(),
    ]);
    const target = path.join(downloads, file.suggestedFilename());
    await file.saveAs(target);
    return { name: file.suggestedFilename(), body: fs.readFileSync(target, 'utf8') };
  }

  beforeAll(async () => {
    f = await openStudio('moments');
    ({ service, page, key } = f);
    downloads = path.join(f.work, 'downloads');
    fs.mkdirSync(downloads, { recursive: true });
  }, 180_000);

  afterAll(() => f?.close());

  it('analyses a three-reader recording to the end: moments, profiles and a summary', async () => {
    await signInWithProject(f, { name: 'Moments E2E', key: 'moments-e2e' });
    sessionId = await uploadAndOpen(f, buildRecording(f.work));
    expect(sessionId).not.toBe('');
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 800_000 });
    const res = await fetch(`${service.url}/v1/speech/transcriptions/${sessionId}/intelligence`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    intel = AnalysisDocument.parse(await res.json()).intelligence;
    console.info(
      `document: ${intel.segments.length} lines, speakers ${Object.keys(intel.speakers).join(' ')}, moments ${JSON.stringify(
        intel.moments.map((m) => [m.type, m.start, m.end]),
      )}, delivery ${JSON.stringify(intel.segments.map((s) => [s.id, s.delivery?.label, deliveryKinds(s)]))}, ` +
        `watch-outs ${JSON.stringify(intel.summary.watch_out_items.map((w) => [w.kind, w.ranges]))}`,
    );
    expect(intel.status).toBe('complete');
    expect(Object.keys(intel.speakers).length).toBeGreaterThanOrEqual(2);
    expect(intel.moments.length).toBeGreaterThan(0);
    expect(intel.summary.overview).not.toBe('');
    // The clipped line gives at least one watch-out with a time range to jump to.
    expect(intel.summary.watch_out_items.some((w) => w.ranges.length > 0)).toBe(true);
  });

  it('draws every moment and delivery label in its lane at its time, counted in the legend', async () => {
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor();
    const expected = [
      ...intel.moments.map((m) => ({
        kind: `moment.${m.type}`,
        lane: 'moments',
        start: m.start,
        end: m.end,
      })),
      ...intel.segments.flatMap((s) =>
        deliveryKinds(s).map((kind) => ({ kind, lane: 'delivery', start: s.start, end: s.end })),
      ),
    ];
    const drawn = async () =>
      (await markers('[data-lane=moments]').count()) + (await markers('[data-lane=delivery]').count());
    await expect.poll(drawn).toBe(expected.length);
    for (const m of expected) {
      const el = markers(`[data-kind="${m.kind}"][data-start="${m.start}"][data-end="${m.end}"]`).first();
      expect(await el.getAttribute('data-lane')).toBe(m.lane);
      const pos = await markerPosition(el);
      expect(Math.abs(pos.left - m.start / intel.duration)).toBeLessThan(0.005);
      expect(pos.right).toBeGreaterThanOrEqual(m.end / intel.duration - 0.005);
    }
    const counts = new Map<string, number>();
    for (const m of expected) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
    for (const [kind, n] of counts)
      expect(
        await page.locator(`[data-testid=marker-filter][data-kind="${kind}"] .count`).textContent(),
      ).toBe(String(n));
    await shot('20-moment-markers');
  });

  it('shows a moment’s reason on hover, and selects its span on click', async () => {
    const m = intel.moments[0]!;
    const el = markers(
      `[data-kind="moment.${m.type}"][data-start="${m.start}"][data-end="${m.end}"]`,
    ).first();
    await el.hover();
    const tip = page.getByTestId('marker-tooltip');
    await tip.waitFor();
    expect((await tip.textContent()) ?? '').toContain(m.reason);
    await shot('21-moment-hover');
    await el.click();
    await expect.poll(() => page.getByTestId('in-point').textContent()).toBe(t(m.start));
    await expect.poll(() => page.getByTestId('out-point').textContent()).toBe(t(m.end));
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(t(m.start));
  });

  it('hides and shows moments and delivery labels with the legend’s filters', async () => {
    const total = await markers().count();
    const kind = `moment.${intel.moments[0]!.type}`;
    const n = await markers(`[data-kind="${kind}"]`).count();
    const filter = page.locator(`[data-testid=marker-filter][data-kind="${kind}"]`);
    await filter.click();
    await expect.poll(() => markers(`[data-kind="${kind}"]`).count()).toBe(0);
    expect(await markers().count()).toBe(total - n);
    expect(await filter.getAttribute('aria-pressed')).toBe('false');
    await shot('22-moments-filtered');
    await filter.click();
    await expect.poll(() => markers(`[data-kind="${kind}"]`).count()).toBe(n);

    for (const lane of ['moments', 'delivery']) {
      const count = await markers(`[data-lane=${lane}]`).count();
      if (count === 0) continue;
      const toggle = page.locator(`.legend-lane[data-lane=${lane}] [data-testid=marker-lane-filter]`);
      await toggle.click();
      await expect.poll(() => markers(`[data-lane=${lane}]`).count()).toBe(0);
      expect(await markers().count()).toBe(total - count);
      await toggle.click();
      await expect.poll(() => markers().count()).toBe(total);
    }
  });

  it('shows the summary, and a watch-out’s time range moves the playhead', async () => {
    await page.getByTestId('tab-summary').click();
    await page.getByTestId('summary-panel').waitFor();
    expect(await page.getByTestId('summary-overview').textContent()).toBe(intel.summary.overview);
    expect(await page.getByTestId('summary-speaker').count()).toBe(intel.summary.speakers.length);
    expect(await page.getByTestId('watch-out').count()).toBe(intel.summary.watch_out_items.length);
    const ranges = intel.summary.watch_out_items.flatMap((w) => w.ranges);
    // A range away from where the playhead is now.
    const now = await page.getByTestId('readout').textContent();
    const range = ranges.find((r) => t(r.start) !== now) ?? ranges[0]!;
    await page.locator(`[data-testid=watch-out-range][data-start="${range.start}"]`).first().click();
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(t(range.start));
    await shot('23-summary');
  });

  it('plots each speaker’s arc; a point jumps to its line', async () => {
    await page.getByTestId('tab-speakers').click();
    await page.getByTestId('speaker-insights').waitFor();
    const labels = Object.keys(intel.speakers);
    expect(await page.getByTestId('speaker-card').count()).toBe(labels.length);
    for (const label of labels) {
      const card = page.locator(`[data-testid=speaker-card][data-speaker="${label}"]`);
      const points = card.locator('[data-testid=trajectory-point][data-series=valence]');
      expect(await points.count()).toBe(intel.speakers[label]!.trajectory.length);
      expect(await card.getByTestId('speaker-summary').textContent()).toBe(intel.speakers[label]!.summary);
      expect(await card.locator('[data-key=turns]').getAttribute('data-raw')).toBe(
        String(intel.speakers[label]!.turns),
      );
    }
    // Points sit at their line's time across the chart.
    const label = labels[0]!;
    const traj = intel.speakers[label]!.trajectory;
    const point = traj[traj.length - 1]!;
    const el = page.locator(
      `[data-testid=speaker-card][data-speaker="${label}"] [data-testid=trajectory-point][data-series=valence][data-segment-id="${point.segment_id}"]`,
    );
    const frac = await el.evaluate((c) => {
      const svg = (c as SVGGraphicsElement).ownerSVGElement!.getBoundingClientRect();
      const box = c.getBoundingClientRect();
      return (box.left + box.width / 2 - svg.left) / svg.width;
    });
    // The chart pads 8 px on each side of the time axis.
    const width = await el.evaluate(
      (c) => (c as SVGGraphicsElement).ownerSVGElement!.getBoundingClientRect().width,
    );
    expect(Math.abs(frac - (8 + (point.t / intel.duration) * (width - 16)) / width)).toBeLessThan(0.01);
    await shot('24-speakers');
    // Points of other measures may sit on top at the same line: any of them goes to the same line.
    await el.click({ force: true });
    const panel = page.getByTestId('line-panel');
    await panel.waitFor();
    expect(await panel.getAttribute('data-segment-id')).toBe(String(point.segment_id));
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(t(point.start));
    const seg = intel.segments.find((s) => s.id === point.segment_id)!;
    expect(
      await panel.locator('[data-testid=line-value][data-key="perception.emotion"]').getAttribute('data-raw'),
    ).toBe(seg.perception!.emotion);
    await shot('25-line-perception');
    await page.getByRole('button', { name: 'Close line analysis' }).click();
    await page.getByTestId('tab-transcript').click();
  });

  it('downloads the selects EDL and the analysis CSV, which read back', async () => {
    const selects = intel.moments.filter((m) => m.type === 'select');
    const edl = await download('selects_edl');
    expect(edl.name).toBe('three readers.selects.edl');
    const parsed = parseEdl(edl.body);
    expect(parsed.events).toHaveLength(selects.length);
    expect(parsed.title).toBe('three readers.flac selects');
    const csv = await download('analysis_csv');
    expect(csv.name).toBe('three readers.analysis.csv');
    const [header, ...rows] = parseCsv(csv.body);
    expect(header).toEqual([...ANALYSIS_CSV_COLUMNS]);
    expect(rows).toHaveLength(intel.coverage.segments);
    const emotion = ANALYSIS_CSV_COLUMNS.indexOf('emotion');
    for (const row of rows) {
      const seg = intel.segments.find((s) => String(s.id) === row[0]);
      expect(row[emotion]).toBe(seg?.perception?.emotion ?? '');
    }
    // The editor EDL marks the moments too, coloured by type.
    const full = parseEdl((await download('edl')).body);
    const colours = full.events[0]!.locators.filter((l) => /^(Select|Unusable|Trim):/.test(l.text)).map(
      (l) => l.colour,
    );
    expect(colours).toHaveLength(intel.moments.length);
    expect(new Set(colours).size).toBeLessThanOrEqual(3);
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
