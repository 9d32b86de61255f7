/**
 * Roles in the studio (Debian's Chromium, the real service): an admin sees the correction and revoice controls
 * and the admin page, and gives a role there; a viewer signed in with their key sees neither the correction nor
 * the revoice controls (notes stay); someone whose roles an admin took away gets the page saying to ask one.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { openStudio, type StudioFixture } from './studio-fixture';
import { multipartBody, rawRequest } from '../helpers/service';
import { audioDir, modelsDir, repoRoot } from '../helpers/paths';

const recording = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(recording);

describe.skipIf(!canRun)('roles in the studio', { timeout: 300_000 }, () => {
  let f: StudioFixture;
  let sessionId = '';
  let dubId = '';
  const keys: Record<string, string> = {};

  const cli = (script: 'keys' | 'users', ...args: string[]) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', `src/service/cli/${script}.ts`, ...args], {
      cwd: repoRoot,
      env: { ...process.env, TAKELINE_DATA_DIR: f.dataDir, TAKELINE_MODELS_DIR: modelsDir },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.trim();
  };
  const owner = () => ({ Authorization: `Bearer ${f.key}` });
  const signInWithKey = async (key: string) => {
    await f.browser.context.clearCookies();
    await f.page.goto(`${f.service.url}/`);
    await f.page.getByLabel('API key', { exact: true }).fill(key);
    await f.page.getByRole('button', { name: 'Sign in' }).click();
  };

  beforeAll(async () => {
    f = await openStudio('roles');
    expect((await fetch(`${f.service.url}/v1/speech/projects`, { method: 'POST', headers: { ...owner(), 'Content-Type': 'application/json' }, body: JSON.stringify({ key: 'show', name: 'Show' }) })).status).toBe(201);
    const audio = fs.readFileSync(recording);
    const upload = multipartBody([
      { name: 'project_key', value: 'show' },
      { name: 'file', file: audio, filename: 'take.flac' },
    ]);
    const made = await rawRequest(`${f.service.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...owner(), 'Content-Type': upload.contentType }, body: upload.body });
    expect(made.status).toBe(201);
    sessionId = made.json().id;
    // A dub with its lines given: ready without transcribing.
    const dub = multipartBody([
      { name: 'file', file: audio, filename: 'dub.flac' },
      { name: 'lines', value: JSON.stringify([{ speaker: 'S1', start: 0.5, end: 3, text: 'Printing, in the only sense.' }]) },
    ]);
    const dubMade = await rawRequest(`${f.service.url}/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', headers: { ...owner(), 'Content-Type': dub.contentType }, body: dub.body });
    expect(dubMade.status, dubMade.text()).toBeLessThan(300);
    dubId = dubMade.json().id;
    keys.vera = cli('keys', 'create', 'vera-laptop', '--user', 'vera');
    cli('users', 'role', 'vera', 'editor');
    keys.nora = cli('keys', 'create', 'nora-laptop', '--user', 'nora');
    cli('users', 'role', 'nora', 'none');
  }, 240_000);
  afterAll(async () => {
    await f?.close();
  });

  it('shows an admin the correction and revoice controls and the admin page, where a role is given', async () => {
    const { page, service } = f;
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    await page.goto(`${service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('open-timebase').waitFor();
    await page.getByTestId('open-replace').waitFor();
    await page.goto(`${service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.getByTestId('revoice').waitFor({ timeout: 60_000 });
    await page.getByTestId('admin-link').click();
    await page.getByTestId('admin-page').waitFor();
    const vera = page.getByTestId('admin-user-vera');
    await expect.poll(() => vera.getByTestId('team-role').inputValue()).toBe('editor');
    expect(await page.getByTestId('admin-user-nora').getByTestId('team-role').inputValue()).toBe('');
    // Vera only listens and leaves notes from now on.
    await vera.getByTestId('team-role').selectOption('viewer');
    await page.getByText("vera's roles saved").waitFor();
    const users = await (await fetch(`${service.url}/v1/admin/users`, { headers: owner() })).json();
    expect(users.data.find((u: { name: string }) => u.name === 'vera')).toMatchObject({ team_role: 'viewer' });
  });

  it('hides the correction and revoice controls from a viewer, and the admin page', async () => {
    const { page, service } = f;
    await signInWithKey(keys.vera!);
    await page.goto(`${service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('search').waitFor();
    // The page has asked who is signed in (GET /v1/me) before its controls are counted.
    await page.waitForLoadState('networkidle');
    for (const control of ['open-timebase', 'open-replace', 'open-align', 'admin-link']) expect(await page.getByTestId(control).count(), control).toBe(0);
    // Export stays.
    expect(await page.getByText(/Export/).count()).toBeGreaterThan(0);
    await page.goto(`${service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.getByTestId('lines-panel').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('revoice').count()).toBe(0);
    expect(await page.getByTestId('dub-export').count()).toBe(1);
    // What the page hides, the service refuses too.
    const revoice = await fetch(`${service.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}/revoice`, { method: 'POST', headers: { Authorization: `Bearer ${keys.vera}` } });
    expect(revoice.status).toBe(403);
    expect((await revoice.json()).detail).toMatch(/needs the editor role/);
  });

  it('tells someone with no role to ask an admin', async () => {
    await signInWithKey(keys.nora!);
    await f.page.getByTestId('no-role').waitFor();
    await f.page.getByText('Ask an admin of this server').waitFor();
    expect(f.consoleErrors.filter((e) => !/403|Forbidden/.test(e))).toEqual([]);
  });
});
