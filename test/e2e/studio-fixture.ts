/**
 * The set-up the studio's end-to-end tests share: a built studio, a real service on a data folder of the
 * test's own (so a test can restart it on the same folder), the studio's API key, Debian's Chromium with a
 * page collecting errors, and the first steps a user takes (sign in, create a project, upload, open the
 * recording).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { modelsDir } from '../helpers/paths';
import { collectPageErrors, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { repoRoot, startService, type RunningService } from './service-process';

export const screenshots = path.join(repoRoot, 'test-artifacts/screenshots');

export interface StudioFixture {
  /** The running service; a test that restarts it on `dataDir` puts the new one here. */
  service: RunningService;
  browser: { context: BrowserContext; close(): Promise<void> };
  page: Page;
  /** The studio's own API key, for reading what the service serves. */
  key: string;
  /** A scratch folder of the test's own, removed by `close`. */
  work: string;
  dataDir: string;
  /** Uncaught page errors and console errors seen so far. */
  consoleErrors: string[];
  shot(name: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** `chromiumArgs`: extra command-line flags for this test's Chromium (a fake capture device, say). */
export async function openStudio(prefix: string, env: Record<string, string> = {}, chromiumArgs: string[] = []): Promise<StudioFixture> {
  fs.mkdirSync(screenshots, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `takeline-e2e-${prefix}-`));
  const dataDir = path.join(work, 'data');
  await buildStudio();
  const service = await startService({ env: { TAKELINE_MODELS_DIR: modelsDir, TAKELINE_DATA_DIR: dataDir, ...env } });
  const key = fs.readFileSync(path.join(dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
  const browser = await launchChromium(chromiumArgs);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const fixture: StudioFixture = {
    service,
    browser,
    page,
    key,
    work,
    dataDir,
    consoleErrors: collectPageErrors(page),
    shot: (name) => page.screenshot({ path: path.join(screenshots, `${name}.png`) }),
    close: async () => {
      await browser.close();
      // The test may have restarted the service on the same folder: stop the one running now.
      await fixture.service.stop();
      // A background job's tool (speaker adaptation) may still be letting go of its files: retry briefly.
      fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  return fixture;
}

/** Signs in through the one-time link and creates a project; the studio then shows that project. */
export async function signInWithProject(f: StudioFixture, project: { name: string; key: string }): Promise<void> {
  const { page, service } = f;
  await page.goto(service.signInUrl);
  await page.waitForURL(`${service.url}/`);
  await page.getByLabel('Name').fill(project.name);
  await page.getByLabel('Key').fill(project.key);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(new RegExp(`#/projects/${project.key}$`));
}

/** Uploads a file into the project on screen and opens its recording; answers the session id. */
export async function uploadAndOpen(f: StudioFixture, file: string): Promise<string> {
  const { page } = f;
  await page.getByTestId('file-input').setInputFiles(file);
  await page.getByRole('link', { name: path.basename(file) }).click();
  return /#\/recordings\/(.+)$/.exec(page.url())?.[1] ?? '';
}

/** Left and right edges of a timeline marker relative to the waveform's full (scrollable) width, 0–1. */
export async function markerPosition(marker: Locator): Promise<{ left: number; right: number }> {
  return marker.evaluate((el) => {
    const wrapper = (el.getRootNode() as ShadowRoot).querySelector('[part=wrapper]')!.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return {
      left: (box.left - wrapper.left) / wrapper.width,
      right: (box.right - wrapper.left) / wrapper.width,
    };
  });
}
