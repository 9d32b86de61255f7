import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckOutcome, TeamServerForm } from '../../src/shared/settings-ipc';
import { dialogPageUrl } from '../../src/main/team-server-dialog';
import { repoRoot } from '../helpers/paths';
import { launchChromium } from './browser';

const screenshots = path.join(repoRoot, 'test-artifacts/screenshots');

/**
 * The desktop app's Team Server… page in Chromium (Electron's engine), under its own content security policy:
 * its script runs (the policy's hash matches), it shows the saved address, sends what the user typed through
 * the bridge, and shows the answer. The bridge is the page's boundary, so here it records the calls.
 * Screenshot: test-artifacts/screenshots/team-server-dialog.png (the dialog's own size).
 */
let browser: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('team server dialog page', () => {
  it('fills in the saved server, checks and saves what the user typed, and shows the answer', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 520, height: 420 }); // dialogWindowOptions' size
    const calls: [string, TeamServerForm | null][] = [];
    const answers: Record<string, CheckOutcome> = {
      check: { ok: false, field: 'key', message: 'The team server does not accept this key.' },
      save: { ok: true, message: 'The server accepted the key; it sees 2 projects.' },
    };
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction('__settingsCall', async (method: string, form: TeamServerForm | null) => {
      calls.push([method, form]);
      if (method === 'current') return { mode: 'team', url: 'https://takeline.example.com', hasSavedKey: true, keyProtection: 'file-permissions' };
      return answers[method] ?? null;
    });
    await page.addInitScript(() => {
      const call = (window as unknown as { __settingsCall(method: string, form: unknown): Promise<unknown> }).__settingsCall;
      (window as unknown as { takelineSettings: unknown }).takelineSettings = {
        current: () => call('current', null),
        check: (form: unknown) => call('check', form),
        save: (form: unknown) => call('save', form),
        close: () => call('close', null),
      };
    });
    await page.goto(dialogPageUrl());

    await expect.poll(() => page.inputValue('#url')).toBe('https://takeline.example.com');
    expect(await page.getAttribute('#key', 'placeholder')).toBe('leave empty to keep the saved key');
    expect(await page.textContent('#protection')).toMatch(/settings file only you can read/);

    await page.fill('#key', 'tl_typed');
    await page.click('#check');
    await expect.poll(() => page.textContent('#status')).toBe('The team server does not accept this key.');
    expect(await page.getAttribute('#status', 'class')).toBe('bad');
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, 'team-server-dialog.png') });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');

    await page.fill('#url', 'https://other.example.com');
    await page.press('#key', 'Enter'); // submits the form: save
    await expect.poll(() => page.textContent('#status')).toBe('The server accepted the key; it sees 2 projects.');
    expect(await page.getAttribute('#status', 'class')).toBe('ok');

    await page.keyboard.press('Escape');
    await expect.poll(() => calls.length).toBe(4);
    expect(calls).toEqual([
      ['current', null],
      ['check', { url: 'https://takeline.example.com', key: 'tl_typed' }],
      ['save', { url: 'https://other.example.com', key: 'tl_typed' }],
      ['close', null],
    ]);
    expect(violations).toEqual([]);
    await page.close();
  });
});
