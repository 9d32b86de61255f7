import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig, type ServiceConfig } from './config';
import { DataLayout, readOrCreateSecret, writeFileAtomic } from './storage/files';
import { openDatabase } from './storage/database';
import { acquireDataLock } from './storage/data-lock';
import { SqliteSql } from './storage/sql/sqlite-sql';
import { openStores } from './storage/stores';
import { SqlKeyStore } from './storage/key-store';
import { SqlBrowserSessionStore } from './storage/browser-sessions';
import { JobRunner } from './jobs/job-runner';
import { checkMediaTools, resolveMediaTools, type MediaTools } from './media/tools';
import { ModelRegistry, resolveLanguage } from './models/registry';
import { installedEngines } from './models/engines';
import { SqlSignInTokens } from './storage/sign-in-tokens';
import { PeaksCache } from './recordings/peaks-cache';
import { sweepOrphans } from './recordings/intake';
import { stopStaleProcesses } from './jobs/stale-processes';
import { ensureStudioKey } from './auth/studio-key';
import { hashApiKey, isWellFormedKey } from './auth/api-keys';
import { createApp } from './app';
import { answerClientError } from './http/client-error';
import type { ServiceContext } from './context';
import { registerTranscribeJob } from './transcription/transcribe-job';
import { createLocalTranscription } from './transcription/local-engine';
import { SpeakerDirectory } from './speakers/speaker-directory';
import { spectralVoiceMatcher } from './speakers/voice-matcher';
import { ConfigError } from './config';
import { SqlAnalysisStore } from './storage/analysis-store';
import { AnalysisService } from './analysis/analysis-service';
import { registerAnalysisJob } from './analysis/analysis-job';
import { pocketSphinxAvailable, resolvePocketSphinxModel } from './speech/recognition/pocketsphinx/model';
import { createPocketSphinxAligner, type ClosableAligner } from './speech/alignment/pocketsphinx-aligner';
import { decodeSpans } from './media/decode-spans';
import type { Span } from './speech/types';
import { resolveSphinxtrain } from './speech/recognition/pocketsphinx/adaptation';
import { SpeakerAdaptation } from './speakers/speaker-adaptation';
import { queueSpeakerAdaptation, registerSpeakerAdaptationJob } from './speakers/adaptation-job';
import { correctionLearning } from './transcription/correction-learning';
import { createRnnoiseDenoiser } from './speech/enhancement/rnnoise';
import { createWpeDereverberator } from './speech/enhancement/reverberant-speech';
import { createVoiceRegistry } from './speech/synthesis/catalog';
import { Dubbing } from './dubbing/dubbing';
import { registerPrepareJob } from './dubbing/prepare-job';
import { registerRevoiceJob } from './dubbing/revoice-job';
import { registerTakesJob } from './dubbing/takes-job';
import { WhisperModelManager } from './models/whisper/model-manager';
import { whisperBaseUrl, whisperModelsDir } from './models/whisper/catalogue';
import { SessionSpeakerEditor } from './speakers/session-speakers';
import { registerSpeakerProfilesJob } from './speakers/profile-job';
import { TranscriptEditor } from './transcription/transcript-edits';
import { ScriptAlignment } from './transcription/script-align';
import { DocumentCache } from './http/document-cache';

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
  signInUrl(): Promise<string>;
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
  if (config.databaseUrl !== null) {
    // Said plainly rather than ignored: data written to the embedded database would not be the team's.
    throw new ConfigError(
      'TAKELINE_DATABASE_URL is set, but this version serves only the embedded mode (SQLite and the data folder): team mode is being built. `npm run migrate` already prepares a PostgreSQL schema. Unset TAKELINE_DATABASE_URL to run.',
    );
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
  const sql = new SqliteSql(db);
  const database = openStores(sql);
  const { projects, sessions, revisions } = database;
  const keys = new SqlKeyStore(sql);
  const jobs = new JobRunner(db, { log });
  const voices = createVoiceRegistry(env, config);
  // Engines are listed afresh each time (a Whisper model can be installed while the service runs).
  const models = new ModelRegistry(() => [...installedEngines(env, config), ...voices.descriptors()]);
  const speakers = new SpeakerDirectory(database, spectralVoiceMatcher);
  const analysisStore = new SqlAnalysisStore(sql, db);
  const analysis = new AnalysisService(db, analysisStore, sessions, jobs);
  const audioSecret = readOrCreateSecret(path.join(layout.secrets, 'audio-url.key'));
  const dubbing = new Dubbing({ db, sql, layout, tools, jobs, voices, audioSecret, env, sessions, transcriptRevision: (id) => revisions.current(id) });
  const sessionSpeakers = new SessionSpeakerEditor(database, spectralVoiceMatcher);
  // One denoiser for the service (README, "Background noise"): transcription's noisy chunks and the adaptation
  // statistics of noisy lines, so speaker transforms are learnt from the audio the decoders hear.
  const denoiser = config.denoise ? createRnnoiseDenoiser() : undefined;
  // Likewise for reverberant chunks and lines (README, "Reverberation").
  const dereverberator = config.dereverb ? createWpeDereverberator() : undefined;
  const adaptation = new SpeakerAdaptation(layout.adaptation, config.speakerAdaptation, {
    model: resolvePocketSphinxModel(env),
    tools: resolveSphinxtrain(env),
    cacheDir: layout.adaptation,
    espeak: env.TAKELINE_ESPEAK_NG || 'espeak-ng',
    log,
  });
  let boundPort = config.port;
  // Word corrections align typed words to the audio; names the dictionary lacks are pronounced by espeak-ng.
  let correctionAligner: ClosableAligner | null = null;
  const wordCorrections = {
    aligner: () => (correctionAligner ??= pocketSphinxAvailable(env).ok ? createPocketSphinxAligner({ env, pronounceUnknown: true, tempDir: layout.scratch }) : null),
    audio: async (id: string, spans: readonly Span[]) => decodeSpans(layout.original(id, (await sessions.storedName(id)) ?? ''), tools, spans),
  };
  // Corrections teach the recognizer (README, "Corrections teach the recognizer").
  const learning = correctionLearning({
    dictionary: () => {
      try {
        return adaptation.words();
      } catch {
        return null; // no PocketSphinx dictionary here: nothing to compare typed words with
      }
    },
    relearn: (id) => queueSpeakerAdaptation(adaptation, jobs, id),
    log,
  });
  const transcriptEdits = new TranscriptEditor({ database, speakers: sessionSpeakers, analysis, jobs, ...wordCorrections, learning });

  const context: ServiceContext = {
    config,
    layout,
    db,
    sql,
    database,
    projects,
    sessions,
    keys,
    browserSessions: new SqlBrowserSessionStore(sql),
    jobs,
    tools,
    models,
    whisperModels: new WhisperModelManager({ dir: whisperModelsDir(config), baseUrl: whisperBaseUrl(env), log }),
    languages: { resolve: (value, loc) => resolveLanguage(value, models.languages(), loc) },
    signIn: new SqlSignInTokens(sql),
    peaks: new PeaksCache(layout, sessions, tools),
    transcription: createLocalTranscription({
      tools,
      env,
      matcher: spectralVoiceMatcher,
      log,
      scratchDir: layout.scratch,
      adaptation: config.speakerAdaptation.enabled,
      pronunciationVariants: config.pronunciationVariants,
      denoiser,
      dereverberator,
      withinRecording: {
        estimator: (workDir) => adaptation.recordingEstimator(workDir),
        words: () => adaptation.words(),
      },
    }),
    analysis,
    // 16 documents: a 14-min recording's are 200–270 KB, an hour's about 1 MB (≤ ~16 MB at worst).
    documents: new DocumentCache(16),
    transcriptEdits,
    scriptAlignment: new ScriptAlignment({ sessions, speakers: sessionSpeakers, editor: transcriptEdits, layout, tools, env, tempDir: layout.scratch }),
    completeTranscript: (id, transcript) =>
      database.transaction(async (stores) => {
        await stores.sessions.complete(id, transcript);
        // A new recognizer transcript starts a new revision history.
        await stores.revisions.discard(id);
        // The analysis is queued in the same transaction (the queue is still synchronous on the embedded
        // database, on the same connection).
        const summary = await stores.sessions.summary(id);
        if (summary) analysis.queue(id, summary.duration);
      }),
    voices,
    dubbing,
    adaptation,
    afterTranscript: async (id) => {
      await speakers.enrol(id);
      queueSpeakerAdaptation(adaptation, jobs, id);
    },
    speakerNames: (id) => speakers.namesFor(id),
    speakerMap: (id) => speakers.speakerMap(id),
    audioSecret,
    extraKeyHash: config.extraApiKey ? hashApiKey(config.extraApiKey) : null,
    port: () => boundPort,
    log,
  };

  // Leftover decoders of a crashed run first: they hold files in the scratch folder the sweep empties.
  stopStaleProcesses(layout.scratch, log);
  await sweepOrphans(layout, sessions);
  await sessions.recoverInterrupted();
  const apiKey = await ensureStudioKey(keys, layout.secrets, log);
  registerTranscribeJob(context, jobs, context.afterTranscript);
  registerAnalysisJob(
    { store: analysisStore, sessions, layout, tools, modelsDir: config.modelsDir, dictionary: resolvePocketSphinxModel(env).dict, log },
    jobs,
  );
  await analysisStore.recoverInterrupted();
  await dubbing.recover();
  registerPrepareJob(jobs, { store: dubbing.store, files: dubbing.files, sessions, models, transcription: context.transcription, tools, layout, log });
  registerRevoiceJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), cancellers: dubbing.cancellers, log });
  registerTakesJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), log });
  registerSpeakerProfilesJob({ sessions, revisions, layout, tools, speakers: sessionSpeakers }, jobs);
  registerSpeakerAdaptationJob({ sessions, speakers: database.speakers, layout, tools, adaptation, denoiser, dereverberator, log }, jobs);

  const app = createApp(context);
  const server = http.createServer(app);
  // Uploads of long recordings take a while; do not cut them off.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 30_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${boundPort}`;
  // Where `npm run keys -- signin` points its fresh link (the port may have been picked at random).
  writeFileAtomic(layout.serviceUrl, `${url}\n`);
  jobs.start();

  let stopped: Promise<void> | null = null;
  return {
    url,
    port: boundPort,
    apiKey,
    context,
    signInUrl: async () => `${url}/auth/signin?token=${await context.signIn.issue()}`,
    stop: () =>
      (stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await jobs.stop();
        await context.whisperModels.close();
        await context.transcription.close();
        await context.voices.close();
        await dubbing.close();
        await correctionAligner?.close();
        server.closeAllConnections();
        await closed;
        db.close();
        fs.rmSync(layout.serviceUrl, { force: true });
        releaseLock();
      })()),
  };
}
