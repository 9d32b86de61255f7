import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chooseEmbedded,
  chooseTeam,
  DEFAULT_SETTINGS,
  loadSettings,
  parseSettings,
  saveSettings,
  type DesktopSettings,
} from './desktop-settings';

const KEY = 'tl_' + 'k3Y'.repeat(12);
const team: DesktopSettings = {
  version: 1,
  server: 'team',
  team: { url: 'https://takeline.example.com', key: { storage: 'plain', value: KEY } },
};

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-settings-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('parseSettings', () => {
  it('reads the embedded and the team choice', () => {
    expect(parseSettings(JSON.stringify(DEFAULT_SETTINGS))).toEqual({ settings: DEFAULT_SETTINGS, problem: null });
    expect(parseSettings(JSON.stringify(team))).toEqual({ settings: team, problem: null });
    const remembered = { ...team, server: 'embedded' };
    expect(parseSettings(JSON.stringify(remembered)).settings).toEqual(remembered);
  });

  it('falls back to the embedded service and says what is wrong', () => {
    const problem = (value: unknown) => {
      const load = parseSettings(typeof value === 'string' ? value : JSON.stringify(value));
      expect(load.settings).toEqual(DEFAULT_SETTINGS);
      return load.problem;
    };
    expect(problem('{"version": 1,')).toMatch(/not JSON/);
    expect(problem({ version: 2, server: 'embedded' })).toMatch(/version/);
    expect(problem({ version: 1, server: 'cloud' })).toMatch(/server/);
    expect(problem({ version: 1, server: 'team' })).toMatch(/team: server is "team" but no team server is given/);
    expect(problem({ ...team, team: { ...team.team, url: 'https://takeline.example.com/studio' } })).toMatch(/team\.url/);
    expect(problem({ ...team, team: { ...team.team, url: 'HTTPS://Takeline.example.com' } })).toMatch(/team\.url/); // not as written
    expect(problem({ ...team, team: { ...team.team, key: { storage: 'plain', value: 'hunter2' } } })).toMatch(/team\.key/);
    expect(problem({ ...team, team: { ...team.team, key: { storage: 'safeStorage', encrypted: '***' } } })).toMatch(/team\.key/);
    expect(problem({ ...team, theme: 'dark' })).toMatch(/theme/); // unknown keys are reported, not dropped
  });
});

describe('loadSettings and saveSettings', () => {
  it('uses the embedded service without a file, and says nothing', () => {
    expect(loadSettings(path.join(dir, 'desktop-settings.json'))).toEqual({ settings: DEFAULT_SETTINGS, problem: null });
  });

  it('writes owner-only JSON that reads back the same, with no temporary file left', () => {
    const file = path.join(dir, 'desktop-settings.json');
    expect(saveSettings(file, team)).toEqual({ keptInvalidAs: null });
    expect(loadSettings(file)).toEqual({ settings: team, problem: null });
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['desktop-settings.json']);
  });

  it('refuses to write settings that do not match the schema, leaving the file as it was', () => {
    const file = path.join(dir, 'desktop-settings.json');
    saveSettings(file, team);
    const before = fs.readFileSync(file, 'utf8');
    const broken = { version: 1, server: 'team' } as DesktopSettings;
    expect(() => saveSettings(file, broken)).toThrow(/team/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('reports a file it cannot use, leaves it alone, and keeps it aside when new settings are saved', () => {
    const file = path.join(dir, 'desktop-settings.json');
    const written = '{"version": 1, "server": "team", "team": {"url": "https://takeline.example.com"';
    fs.writeFileSync(file, written);
    const load = loadSettings(file);
    expect(load.settings).toEqual(DEFAULT_SETTINGS);
    expect(load.problem).toContain(file);
    expect(load.problem).toMatch(/not JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe(written); // reading changes nothing

    const { keptInvalidAs } = saveSettings(file, chooseEmbedded(load.settings), new Date('2026-11-28T18:00:00.123Z'));
    expect(keptInvalidAs).toBe(path.join(dir, 'desktop-settings.invalid-2026-11-28T18-00-00-123Z.json'));
    expect(fs.readFileSync(keptInvalidAs!, 'utf8')).toBe(written);
    expect(loadSettings(file)).toEqual({ settings: DEFAULT_SETTINGS, problem: null });
  });

  it('reports a file it cannot read', () => {
    const file = path.join(dir, 'desktop-settings.json');
    fs.mkdirSync(file); // a folder where the file should be
    const load = loadSettings(file);
    expect(load.settings).toEqual(DEFAULT_SETTINGS);
    expect(load.problem).toMatch(/could not be read/);
  });
});

describe('choosing a server', () => {
  it('remembers the team server when going back to the embedded service', () => {
    const embedded = chooseEmbedded(team);
    expect(embedded).toEqual({ ...team, server: 'embedded' });
    expect(chooseTeam(embedded, team.team!)).toEqual(team);
    expect(chooseTeam(DEFAULT_SETTINGS, team.team!)).toEqual(team);
  });
});
