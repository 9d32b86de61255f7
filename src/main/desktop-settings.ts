import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../service/storage/files';
import { checkApiKey, checkServerUrl } from './team-server-url';

/**
 * The desktop app's own settings, in Electron's userData: which service the studio uses (the embedded one,
 * the default, or a team server) and the team server's address and key. The service never reads this file.
 *
 * A file that cannot be read or does not match the schema is reported and the app falls back to the
 * embedded service; the file itself is left as it is, and when new settings are saved over it, it is first
 * kept beside them under another name. Nothing the user wrote is silently lost.
 */
export const SETTINGS_FILE_NAME = 'desktop-settings.json';

/** How the key is kept: encrypted by the OS keychain (Electron's safeStorage) or, where there is none, as is. */
export const storedKeySchema = z.discriminatedUnion('storage', [
  z.strictObject({ storage: z.literal('safeStorage'), encrypted: z.base64().min(1) }),
  z.strictObject({
    storage: z.literal('plain'),
    value: z.string().refine((value) => checkApiKey(value).ok, 'not a Takeline API key'),
  }),
]);

export const teamServerSchema = z.strictObject({
  url: z.string().refine((value) => {
    const check = checkServerUrl(value);
    return check.ok && check.origin === value;
  }, 'not a team server address (an http: or https: origin such as https://takeline.example.com)'),
  key: storedKeySchema,
});

export const desktopSettingsSchema = z
  .strictObject({
    version: z.literal(1),
    server: z.enum(['embedded', 'team']),
    /** Kept when the user goes back to the embedded service, so choosing the team server again is one step. */
    team: teamServerSchema.optional(),
  })
  .refine((settings) => settings.server !== 'team' || settings.team !== undefined, {
    message: 'server is "team" but no team server is given',
    path: ['team'],
  });

export type StoredKey = z.infer<typeof storedKeySchema>;
export type TeamServerSettings = z.infer<typeof teamServerSchema>;
export type DesktopSettings = z.infer<typeof desktopSettingsSchema>;

export const DEFAULT_SETTINGS: DesktopSettings = { version: 1, server: 'embedded' };

export interface SettingsLoad {
  settings: DesktopSettings;
  /** Why the file was not used (the app then runs embedded), or null when it was used or absent. */
  problem: string | null;
}

export function parseSettings(text: string): SettingsLoad {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { settings: DEFAULT_SETTINGS, problem: `it is not JSON (${(error as Error).message})` };
  }
  const parsed = desktopSettingsSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    return { settings: DEFAULT_SETTINGS, problem: issues.join('; ') };
  }
  return { settings: parsed.data, problem: null };
}

export function loadSettings(file: string): SettingsLoad {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: DEFAULT_SETTINGS, problem: null };
    return { settings: DEFAULT_SETTINGS, problem: `${file} could not be read (${(error as Error).message})` };
  }
  const load = parseSettings(text);
  return load.problem === null ? load : { ...load, problem: `${file} was not used: ${load.problem}` };
}

export interface SettingsSave {
  /** Where a previous file that did not parse was kept, or null. */
  keptInvalidAs: string | null;
}

/**
 * Writes the settings atomically (owner-only: it may hold a key). Settings that do not match the schema are
 * refused before anything is written; an existing file that does not parse is renamed aside first.
 */
export function saveSettings(file: string, settings: DesktopSettings, now: Date = new Date()): SettingsSave {
  const checked = desktopSettingsSchema.parse(settings);
  let keptInvalidAs: string | null = null;
  let existing: string | null = null;
  try {
    existing = fs.readFileSync(file, 'utf8');
  } catch {
    existing = null;
  }
  if (existing !== null && parseSettings(existing).problem !== null) {
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    keptInvalidAs = path.join(path.dirname(file), `${path.basename(file, '.json')}.invalid-${stamp}.json`);
    fs.renameSync(file, keptInvalidAs);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(checked, null, 2) + '\n', 0o600);
  return { keptInvalidAs };
}

/** The settings after the user chose the embedded service: the team server is remembered, not used. */
export function chooseEmbedded(settings: DesktopSettings): DesktopSettings {
  return { ...settings, server: 'embedded' };
}

/** The settings after the user chose (and the app checked) a team server. */
export function chooseTeam(settings: DesktopSettings, team: TeamServerSettings): DesktopSettings {
  return { ...settings, server: 'team', team };
}
