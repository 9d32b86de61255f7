import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, processEnvironment, type ServiceConfig } from './config';
import { configureBackgroundNice } from './jobs/background-priority';
import { DataLayout } from './storage/files';
import { acquireDataLock } from './storage/data-lock';
import { checkMediaTools, resolveMediaTools } from './media/tools';
import { isWellFormedKey } from './auth/api-keys';
import { openEmbedded, openTeam, type Persistence, type ProcessRole } from './persistence';
import type { WhisperCatalogueEntry } from './models/whisper/catalogue';
import { startDesktop } from './assembly/desktop';
import { startApiNode } from './assembly/api-node';
import { startWorker } from './assembly/worker';
import type { RunningService, RunningWorker } from './assembly/roles';
import { sweepDepartedNodes } from './storage/departed-nodes';
import { ServiceMetrics } from './metrics/service-metrics';
import { loadMetricsConfig } from './metrics/metrics-config';

export type { RunningService, RunningWorker } from './assembly/roles';

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** Team mode (TAKELINE_DATABASE_URL set): an API node serves HTTP and queues work; a worker runs the jobs. */
  role?: ProcessRole;
  port?: number;
  dataDir?: string;
  log?: (line: string) => void;
  /** The Whisper catalogue downloads are checked against (tests serve a stand-in model under a catalogue of their own). */
  whisperCatalogue?: readonly WhisperCatalogueEntry[];
}

/**
 * The composition root: reads the configuration, locks the data folder (the desktop) or opens the team's
 * database, and starts the role this process has (assembly/: the desktop, a team's API node, or its worker).
 * Nothing else holds global state. Used by `npm run serve`, `npm run worker` and by Electron's main process.
 */
export async function startService(options: StartOptions & { role: 'worker' }): Promise<RunningWorker>;
export async function startService(options?: StartOptions & { role?: 'api' }): Promise<RunningService>;
export async function startService(options: StartOptions = {}): Promise<RunningService | RunningWorker> {
  const env = options.env ?? processEnvironment();
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = loadConfig(env);
  const config: ServiceConfig = {
    ...base,
    port: options.port ?? base.port,
    dataDir: options.dataDir ? path.resolve(options.dataDir) : base.dataDir,
  };
  // This process's background work (decoders, ffmpeg) runs this far below its event loop.
  configureBackgroundNice(config.backgroundNice);
  if (config.extraApiKey !== null && !isWellFormedKey(config.extraApiKey)) {
    throw new ConfigError('TAKELINE_API_KEY must be "tl_" followed by at least 32 letters and digits (create one with `npm run keys -- create`).');
  }
  const role = options.role ?? 'api';
  if (config.databaseUrl === null && role === 'worker') {
    throw new ConfigError('A worker runs the jobs of a team server: set TAKELINE_DATABASE_URL (postgres://…). The desktop service runs its own jobs.');
  }
  const tools = resolveMediaTools(env);
  checkMediaTools(tools);
  const metrics = { metrics: new ServiceMetrics(), config: loadMetricsConfig(env) };

  // Team mode: the data folder is the team's shared volume (PostgreSQL holds the records), so no node holds it
  // alone; each node's partial uploads and working files are its own (named by host and process).
  const team = config.databaseUrl !== null;
  const layout = new DataLayout(config.dataDir, team ? `${os.hostname()}-${process.pid}` : undefined);
  layout.ensure();
  for (const folder of sweepDepartedNodes(layout)) log(`removed ${folder}: its node is gone`);
  const releaseLock = team ? () => {} : acquireDataLock(layout.lock, layout.root);
  let persistence: Persistence | null = null;
  try {
    const databaseError = () => metrics.metrics.databaseErrors.inc();
    persistence = team ? await openTeam(config.databaseUrl!, role, log, databaseError) : openEmbedded(layout, databaseError);
    const input = { config, env, layout, tools, log, persistence, metrics };
    if (!team) return await startDesktop(input, releaseLock, options);
    if (role === 'api') return await startApiNode(input, releaseLock, options);
    const queue = persistence.queue!;
    return await startWorker({ ...input, persistence: { ...persistence, queue } }, releaseLock);
  } catch (error) {
    await persistence?.close().catch(() => {});
    releaseLock();
    throw error;
  }
}
