import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig, type ServiceConfig } from './config';
import { DataLayout, readOrCreateSecret } from './storage/files';
import { openDatabase } from './storage/database';
import { acquireDataLock } from './storage/data-lock';
import { ProjectStore } from './storage/project-store';
import { SessionStore } from './storage/session-store';
import { KeyStore } from './storage/key-store';
import { BrowserSessionStore } from './storage/browser-sessions';
import { JobRunner } from './jobs/job-runner';
import { checkMediaTools, resolveMediaTools, type MediaTools } from './media/tools';
import { ModelRegistry, resolveLanguage } from './models/registry';
import { installedEngines } from './models/engines';
import { SignInTokens } from './auth/sign-in';
import { PeaksCache } from './recordings/peaks-cache';
import { sweepOrphans } from './recordings/intake';
import { ensureStudioKey } from './auth/studio-key';
import { hashApiKey, isWellFormedKey } from './auth/api-keys';
import { createApp } from './app';
import type { ServiceContext } from './context';
import { registerTranscribeJob } from './transcription/transcribe-job';
import { createLocalTranscription } from './transcription/local-engine';
import { SpeakerDirectory } from './speakers/speaker-directory';
import { spectralVoiceMatcher } from './speakers/voice-matcher';
import { ConfigError } from './config';

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  port?: number;
  dataDir?: string;
  log?: (line: string) => void;
}

export interface RunningService {
  url: string;
  port: number;
  /** The studio's key (what the desktop shell hands the renderer). */
  apiKey: string;
  /** A fresh one-time sign-in link for the studio in a browser. */
  signInUrl(): string;
  context: ServiceContext;
  stop(): Promise<void>;
}

/**
 * The composition root: builds every part of the service once and wires them together. Nothing else
 * holds global state. Used by `npm run serve` and by Electron's main process.
 */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = loadConfig(env);
  const config: ServiceConfig = {
    ...base,
    port: options.port ?? base.port,
    dataDir: options.dataDir ? path.resolve(options.dataDir) : base.dataDir,
  };
  if (config.extraApiKey !== null && !isWellFormedKey(config.extraApiKey)) {
    throw new ConfigError('TAKELINE_API_KEY must be "tl_" followed by at least 32 letters and digits (create one with `npm run keys -- create`).');
  }
  const tools = resolveMediaTools(env);
  checkMediaTools(tools);

  const layout = new DataLayout(config.dataDir);
  layout.ensure();
  const releaseLock = acquireDataLock(layout.lock, layout.root);
  try {
    return await open(config, env, layout, tools, log, releaseLock);
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** Everything after the data folder is locked; `releaseLock` runs when the service stops. */
async function open(
  config: ServiceConfig,
  env: NodeJS.ProcessEnv,
  layout: DataLayout,
  tools: MediaTools,
  log: (line: string) => void,
  releaseLock: () => void,
): Promise<RunningService> {
  const db = openDatabase(layout.database);
  const projects = new ProjectStore(db);
  const sessions = new SessionStore(db);
  const keys = new KeyStore(db);
  const jobs = new JobRunner(db, { log });
  const models = new ModelRegistry(installedEngines(env, config));
  const speakers = new SpeakerDirectory(db, projects, sessions, spectralVoiceMatcher);
  let boundPort = config.port;

  const context: ServiceContext = {
    config,
    layout,
    db,
    projects,
    sessions,
    keys,
    browserSessions: new BrowserSessionStore(db),
    jobs,
    tools,
    models,
    languages: { resolve: (value, loc) => resolveLanguage(value, models.languages(), loc) },
    signIn: new SignInTokens(),
    peaks: new PeaksCache(layout, sessions, tools),
    transcription: createLocalTranscription({ tools, env, matcher: spectralVoiceMatcher }),
    afterTranscript: (id) => speakers.enrol(id),
    speakerNames: (id) => speakers.namesFor(id),
    speakerMap: (id) => speakers.speakerMap(id),
    audioSecret: readOrCreateSecret(path.join(layout.secrets, 'audio-url.key')),
    extraKeyHash: config.extraApiKey ? hashApiKey(config.extraApiKey) : null,
    port: () => boundPort,
    log,
  };

  sweepOrphans(layout, sessions);
  sessions.recoverInterrupted();
  const apiKey = ensureStudioKey(keys, layout.secrets, log);
  registerTranscribeJob(context, jobs, context.afterTranscript);

  const app = createApp(context);
  const server = http.createServer(app);
  // Uploads of long recordings take a while; do not cut them off.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${boundPort}`;
  jobs.start();

  let stopped: Promise<void> | null = null;
  return {
    url,
    port: boundPort,
    apiKey,
    context,
    signInUrl: () => `${url}/auth/signin?token=${context.signIn.issue()}`,
    stop: () =>
      (stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await jobs.stop();
        await context.transcription.close();
        server.closeAllConnections();
        await closed;
        db.close();
        releaseLock();
      })()),
  };
}
