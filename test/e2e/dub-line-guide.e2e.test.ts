/**
 * A line's own guide in the studio: the line row's guide control (Dub's guide / Follow actor) at 1280×800 sets the
 * line's `guide` through the API, shows what the dub's switch gives a line without its own, and goes back to the
 * dub's. Each step is checked through the API. Screenshot: test-artifacts/screenshots/dubguide-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, type StudioFixture } from './studio-fixture';
import { studioDub } from '../helpers/dubs';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const LINES = [
  { speaker: 'S1', start: 0.5, end: 3, text: 'Printing, in the only sense.' },
  { speaker: 'S2', start: 4, end: 6.5, text: 'With which we are at present concerned.' },
];

describe.skipIf(!canRun)("a line's own guide in the studio", { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let dub = { sessionId: '', dubId: '' };
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.dubId}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, 'Content-Type': 'application/json' },
    });
    return res.json();
  };
  const line = async (id: number) => ((await api('/lines')).data as Array<{ id: number; guide: string | null; effective_guide: string | null }>).find((l) => l.id === id)!;

  beforeAll(async () => {
    f = await openStudio('dubguide');
    page = f.page;
    dub = await studioDub(f.service.url, f.key, f.work, 'e2e-dubguide', LINES);
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 420_000);
  afterAll(async () => {
    await f?.close();
  });

  it('sets, shows and clears one line’s guide from its row', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${f.service.url}/#/recordings/${dub.sessionId}/dubs/${dub.dubId}`);
    const guide = (id: number) => page.locator(`[data-testid=dub-line][data-line="${id}"]`).getByTestId('line-guide');
    await guide(2).waitFor({ timeout: 60_000 });
    // Whole and inside its row's voice column at 1280×800.
    const box = (await guide(2).boundingBox())!;
    const cell = (await page.locator(`[data-testid=dub-line][data-line="2"]`).getByTestId('line-voice').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(cell.x + cell.width + 1);
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
    expect(await guide(2).inputValue()).toBe('');
    expect(await guide(2).locator('option:checked').textContent()).toContain('(slot)');

    await guide(2).selectOption('original');
    await expect.poll(async () => (await line(2)).guide, { timeout: 30_000 }).toBe('original');
    expect(await line(2)).toMatchObject({ guide: 'original', effective_guide: 'original' });
    expect(await line(1)).toMatchObject({ guide: null, effective_guide: null });
    await f.shot('dubguide-01-line-follows');

    // The dub's switch reaches a line without its own guide; the row says so.
    await api('', { method: 'PATCH', body: JSON.stringify({ guide: 'original' }) });
    await page.reload();
    await guide(1).waitFor({ timeout: 60_000 });
    await expect.poll(async () => guide(1).locator('option:checked').textContent(), { timeout: 30_000 }).toContain('(actor)');
    expect(await guide(1).getAttribute('data-effective')).toBe('original');

    await api('', { method: 'PATCH', body: JSON.stringify({ guide: null }) });
    await guide(2).selectOption('');
    await expect.poll(async () => (await line(2)).guide, { timeout: 30_000 }).toBeNull();
    expect(await line(2)).toMatchObject({ guide: null, effective_guide: null });
    expect(f.consoleErrors).toEqual([]);
  });
});
