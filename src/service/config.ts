import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdaptationSettings } from './speakers/adaptation-settings';
import { parseRoleMap, RoleMapError, type RoleMap } from './auth/roles';
import { OidcSettingsError, parseOidcSettings, type OidcSettings } from './auth/oidc/settings';
import { backgroundNiceSteps } from './jobs/background-priority';
import { DEFAULT_RENDER_PARALLEL } from './dubbing/parallel';

export interface ServiceConfig {
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  /** Folder with model files no package ships (TAKELINE_MODELS_DIR); null when not configured. */
  modelsDir: string | null;
  /** One more accepted key, for scripts and CI. */
  extraApiKey: string | null;
  maxUploadBytes: number;
  /** The built studio served at `/` (TAKELINE_STUDIO_DIR; default out/renderer in the repository). */
  studioDir: string;
  /** Per project speaker acoustic adaptation (docs/transcription.md, "Speaker adaptation"). */
  speakerAdaptation: AdaptationSettings;
  /** PocketSphinx decodes with the function words' pronunciation variants (TAKELINE_PRONUNCIATION_VARIANTS). */
  pronunciationVariants: boolean;
  /** PocketSphinx hears noisy chunks (speech under 25 dB SNR) denoised by RNNoise (TAKELINE_DENOISE). */
  denoise: boolean;
  /** PocketSphinx hears chunks that hold late reverberation dereverberated by WPE (TAKELINE_DEREVERB). */
  dereverb: boolean;
  /** Team mode's PostgreSQL (TAKELINE_DATABASE_URL, postgres://…); null: the embedded SQLite database. */
  databaseUrl: string | null;
  /** Where the HTTP server listens (TAKELINE_HOST, team API nodes only): 127.0.0.1, or every interface. */
  host: string;
  /**
   * Team API nodes behind a load balancer: the origins users reach them at (TAKELINE_PUBLIC_URL), which the
   * Host/Origin guard accepts besides the node's own loopback address.
   */
  publicOrigins: string[];
  /** Single sign-on through an OpenID Connect provider (TAKELINE_OIDC_*); null: keys and the one-time link only. */
  oidc: OidcSettings | null;
  /**
   * How many nice steps below the service its background work runs (recognizer and ffmpeg children, the analysis
   * and diarization threads; a team worker as a whole): TAKELINE_BACKGROUND_NICE, 0 to 19, 0 off; default 10.
   */
  backgroundNice: number;
  /** Dub lines a revoice or a takes job renders at once (TAKELINE_DUB_RENDER_PARALLEL; default 2, 1: one after another). */
  dubRenderParallel: number;
  /** The provider's groups that give a role for the whole team (TAKELINE_OIDC_ROLE_MAP: `group=role,…`). */
  roleMap: RoleMap;
}

/**
 * The environment this process was started with. Read here only: the composition root (server.ts) hands it down,
 * and a child process that needs one inherits it through its spawn. Entry points of worker threads and child
 * processes, which get no parsed configuration, parse what they need from it with the functions below.
 */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** TAKELINE_BACKGROUND_NICE as `ServiceConfig.backgroundNice` has it, for a thread or child process of the service. */
export function backgroundNice(env: NodeJS.ProcessEnv = process.env): number {
  return backgroundNiceSteps(env.TAKELINE_BACKGROUND_NICE);
}

/** TAKELINE_SILERO_VAD_MODEL: another Silero VAD model file than the packaged one; undefined when not set. */
export function sileroModelPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TAKELINE_SILERO_VAD_MODEL || undefined;
}

function dubRenderParallel(env: NodeJS.ProcessEnv): number {
  return Math.max(1, Math.floor(Number(env.TAKELINE_DUB_RENDER_PARALLEL)) || DEFAULT_RENDER_PARALLEL);
}

export class ConfigError extends Error {}

/**
 * The per-user application data folder, the same one Electron's app.getPath('userData') gives for an app
 * named Takeline, so the desktop app and `npm run serve` share projects and keys.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Takeline');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Takeline');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Takeline');
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export const DEFAULT_PORT = 8765;
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  // Read where the decoders start (transcription/local-engine.ts); checked here so a bad value stops start-up.
  decoderIdleSeconds(env);
  return {
    port: env.TAKELINE_PORT ? parseInteger('TAKELINE_PORT', env.TAKELINE_PORT, 0, 65535) : DEFAULT_PORT,
    dataDir: path.resolve(env.TAKELINE_DATA_DIR || defaultDataDir(env)),
    modelsDir: env.TAKELINE_MODELS_DIR ? path.resolve(env.TAKELINE_MODELS_DIR) : null,
    extraApiKey: env.TAKELINE_API_KEY ? env.TAKELINE_API_KEY.trim() : null,
    maxUploadBytes: env.TAKELINE_MAX_UPLOAD_BYTES
      ? parseInteger('TAKELINE_MAX_UPLOAD_BYTES', env.TAKELINE_MAX_UPLOAD_BYTES, 1, Number.MAX_SAFE_INTEGER)
      : DEFAULT_MAX_UPLOAD_BYTES,
    studioDir: env.TAKELINE_STUDIO_DIR
      ? path.resolve(env.TAKELINE_STUDIO_DIR)
      : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../out/renderer'),
    speakerAdaptation: {
      enabled: parseSwitch('TAKELINE_SPEAKER_ADAPTATION', env.TAKELINE_SPEAKER_ADAPTATION, DEFAULT_SPEAKER_ADAPTATION.enabled),
      minSeconds: env.TAKELINE_ADAPTATION_MIN_SECONDS
        ? parseInteger('TAKELINE_ADAPTATION_MIN_SECONDS', env.TAKELINE_ADAPTATION_MIN_SECONDS, 1, 100_000)
        : DEFAULT_SPEAKER_ADAPTATION.minSeconds,
      maxSeconds: env.TAKELINE_ADAPTATION_MAX_SECONDS
        ? parseInteger('TAKELINE_ADAPTATION_MAX_SECONDS', env.TAKELINE_ADAPTATION_MAX_SECONDS, 1, 1_000_000)
        : DEFAULT_SPEAKER_ADAPTATION.maxSeconds,
      maxRecordings: DEFAULT_SPEAKER_ADAPTATION.maxRecordings,
      alignAdapted: parseSwitch('TAKELINE_ADAPTATION_ALIGN_ADAPTED', env.TAKELINE_ADAPTATION_ALIGN_ADAPTED, DEFAULT_SPEAKER_ADAPTATION.alignAdapted),
      withinRecording: parseSwitch(
        'TAKELINE_ADAPTATION_WITHIN_RECORDING',
        env.TAKELINE_ADAPTATION_WITHIN_RECORDING,
        DEFAULT_SPEAKER_ADAPTATION.withinRecording,
      ),
      mapFromCorrections: parseSwitch('TAKELINE_ADAPTATION_MAP', env.TAKELINE_ADAPTATION_MAP, DEFAULT_SPEAKER_ADAPTATION.mapFromCorrections!),
    },
    pronunciationVariants: parseSwitch('TAKELINE_PRONUNCIATION_VARIANTS', env.TAKELINE_PRONUNCIATION_VARIANTS, true),
    denoise: parseSwitch('TAKELINE_DENOISE', env.TAKELINE_DENOISE, true),
    dereverb: parseSwitch('TAKELINE_DEREVERB', env.TAKELINE_DEREVERB, true),
    databaseUrl: env.TAKELINE_DATABASE_URL ? parseDatabaseUrl(env.TAKELINE_DATABASE_URL) : null,
    ...publicAccess(env),
    oidc: oidcSettings(env),
    backgroundNice: backgroundNice(env),
    dubRenderParallel: dubRenderParallel(env),
    roleMap: roleMap(env),
  };
}

const LISTEN_HOSTS = new Set(['127.0.0.1', '0.0.0.0', '::']);

/**
 * A team API node may listen beyond loopback and answer at the addresses its load balancer is reached at; the
 * desktop's service stays on 127.0.0.1 with its guard as it is (both variables are refused without a team).
 */
function publicAccess(env: NodeJS.ProcessEnv): { host: string; publicOrigins: string[] } {
  const host = env.TAKELINE_HOST?.trim() || '127.0.0.1';
  const listed = (env.TAKELINE_PUBLIC_URL ?? '').split(',').map((part) => part.trim()).filter(Boolean);
  const team = Boolean(env.TAKELINE_DATABASE_URL?.trim());
  if (!team && (host !== '127.0.0.1' || listed.length > 0)) {
    throw new ConfigError('TAKELINE_HOST and TAKELINE_PUBLIC_URL are for team API nodes (with TAKELINE_DATABASE_URL); the desktop service listens on 127.0.0.1 only.');
  }
  if (!LISTEN_HOSTS.has(host)) {
    throw new ConfigError(`TAKELINE_HOST must be 127.0.0.1 (the default), 0.0.0.0 or :: (every interface, for a load balancer), not "${host}".`);
  }
  const publicOrigins = listed.map((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(`TAKELINE_PUBLIC_URL: "${value}" is not an address (https://takeline.example.com).`);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw new ConfigError(`TAKELINE_PUBLIC_URL: "${value}" must be an http:// or https:// origin, without path, query or credentials.`);
    }
    return url.origin;
  });
  return { host, publicOrigins };
}

function oidcSettings(env: NodeJS.ProcessEnv): OidcSettings | null {
  try {
    return parseOidcSettings(env);
  } catch (error) {
    if (error instanceof OidcSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function roleMap(env: NodeJS.ProcessEnv): RoleMap {
  try {
    return parseRoleMap(env.TAKELINE_OIDC_ROLE_MAP);
  } catch (error) {
    if (error instanceof RoleMapError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseDatabaseUrl(value: string): string {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError('TAKELINE_DATABASE_URL must be a postgres:// URL (unset: the embedded database).');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`TAKELINE_DATABASE_URL must be a postgres:// URL, not ${url.protocol}// (unset: the embedded database).`);
  }
  return trimmed;
}

/**
 * Speaker adaptation's defaults (bench/adaptation, "Online adaptation in the service"): a transform once a
 * speaker has this much aligned speech, from the newest recordings up to maxSeconds; within one recording too
 * (bench/pipeline, "Adaptation within a recording").
 */
export const DEFAULT_SPEAKER_ADAPTATION: AdaptationSettings = {
  enabled: true,
  minSeconds: 30,
  maxSeconds: 600,
  maxRecordings: 20,
  alignAdapted: true,
  withinRecording: true,
  mapFromCorrections: true,
};

function parseSwitch(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['1', 'on', 'true', 'yes'].includes(value)) return true;
  if (['0', 'off', 'false', 'no'].includes(value)) return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

// Memory beside an NLE: idle PocketSphinx decoders give their memory back.
/** Seconds a PocketSphinx decoder process may sit idle before it ends (it starts again for the next chunk). */
export const DEFAULT_DECODER_IDLE_SECONDS = 30;

/** TAKELINE_DECODER_IDLE_SECONDS: 0 keeps the decoders up between transcriptions (the behaviour before). */
export function decoderIdleSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TAKELINE_DECODER_IDLE_SECONDS;
  return raw ? parseInteger('TAKELINE_DECODER_IDLE_SECONDS', raw, 0, 86_400) : DEFAULT_DECODER_IDLE_SECONDS;
}
