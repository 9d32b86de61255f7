import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig, type ServiceConfig } from './config';
import { DataLayout, writeFileAtomic } from './storage/files';
import { acquireDataLock } from './storage/data-lock';
import { openStores } from './storage/stores';
import { SqlKeyStore } from './storage/key-store';
import { SqlBrowserSessionStore } from './storage/browser-sessions';
import { JobRunner } from './jobs/job-runner';
import { storageRetrySeconds } from './jobs/storage-retry';
import { checkMediaTools, resolveMediaTools, type MediaTools } from './media/tools';
import { ModelRegistry, resolveLanguage } from './models/registry';
import { installedEngines } from './models/engines';
import { SqlSignInTokens } from './storage/sign-in-tokens';
import { PeaksCache } from './recordings/peaks-cache';
import { SWEEP_GRACE_MS, sweepOrphans } from './recordings/intake';
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
import { SqlJobStore } from './storage/job-store';
import { SqlDubStore } from './storage/dub-store';
import { openEmbedded, openTeam, type Persistence, type ProcessRole } from './persistence';
import { AnalysisService } from './analysis/analysis-service';
import { registerAnalysisJob } from './analysis/analysis-job';
import { pocketSphinxAvailable, resolvePocketSphinxModel } from './speech/recognition/pocketsphinx/model';
import { createPocketSphinxAligner, type ClosableAligner } from './speech/alignment/pocketsphinx-aligner';
import { decodeSpans } from './media/decode-spans';
import type { Span } from './speech/types';
import { resolveSphinxtrain } from './speech/recognition/pocketsphinx/adaptation';
import { SpeakerAdaptation } from './speakers/speaker-adaptation';
import { queueSpeakerAdaptation, registerSpeakerAdaptationJob } from './speakers/adaptation-job';
import { sweepAdaptation } from './speakers/adaptation-files';
import { moveLegacyAdaptation } from './speakers/legacy-adaptation';
import { SqlAdaptationStore } from './storage/adaptation-store';
import { correctionLearning } from './transcription/correction-learning';
import { createRnnoiseDenoiser } from './speech/enhancement/rnnoise';
import { createWpeDereverberator } from './speech/enhancement/reverberant-speech';
import { createVoiceRegistry } from './speech/synthesis/catalog';
import { Dubbing } from './dubbing/dubbing';
import { registerPrepareJob } from './dubbing/prepare-job';
import { registerRevoiceJob } from './dubbing/revoice-job';
import { registerTakesJob } from './dubbing/takes-job';
import { WhisperModelManager } from './models/whisper/model-manager';
import { whisperBaseUrl, whisperModelsDir, type WhisperCatalogueEntry } from './models/whisper/catalogue';
import { TeamWhisperModels } from './models/whisper/team-models';
import { SqlWhisperModelStore } from './storage/whisper-model-store';
import { SessionSpeakerEditor } from './speakers/session-speakers';
import { registerSpeakerProfilesJob } from './speakers/profile-job';
import { TranscriptEditor } from './transcription/transcript-edits';
import { ScriptAlignment } from './transcription/script-align';
import { registerScriptAlignment } from './transcription/script-align-work';
import { SqlScriptAlignCheckpointStore } from './storage/script-align-checkpoint-store';
import { recordingReplaceWork } from './transcription/project-replace';
import { registerRequestWork } from './jobs/request-work';
import { DocumentCache } from './http/document-cache';
import { MIGRATIONS } from './storage/migrations';
import { ANALYSIS_VERSION } from './analysis/stages';
import { StoredFiles } from './storage/stored-files';
import { sweepDepartedNodes } from './storage/departed-nodes';
import { audioUrlSecret, SqlSecretStore } from './storage/secret-store';
import { openBlobStore, storageLocation } from './storage/blobs/open-blob-store';

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

export interface RunningService {
  url: string;
  port: number;
  /** The studio's key (what the desktop shell hands the renderer); null on a team's nodes, which keep none. */
  apiKey: string | null;
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
  const role = options.role ?? 'api';
  if (config.databaseUrl === null && role === 'worker') {
    throw new ConfigError('A worker runs the jobs of a team server: set TAKELINE_DATABASE_URL (postgres://…). The desktop service runs its own jobs.');
  }
  const tools = resolveMediaTools(env);
  checkMediaTools(tools);

  // Team mode: the data folder is the team's shared volume (PostgreSQL holds the records), so no node holds it
  // alone; each node's partial uploads and working files are its own (named by host and process).
  const team = config.databaseUrl !== null;
  const layout = new DataLayout(config.dataDir, team ? `${os.hostname()}-${process.pid}` : undefined);
  layout.ensure();
  for (const folder of sweepDepartedNodes(layout)) log(`removed ${folder}: its node is gone`);
  const releaseLock = team ? () => {} : acquireDataLock(layout.lock, layout.root);
  let persistence: Persistence | null = null;
  try {
    persistence = team ? await openTeam(config.databaseUrl!, role, log) : openEmbedded(layout);
    return await open(config, env, layout, tools, log, releaseLock, persistence, options.whisperCatalogue);
  } catch (error) {
    await persistence?.close().catch(() => {});
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
  persistence: Persistence,
  whisperCatalogue: readonly WhisperCatalogueEntry[] | undefined,
): Promise<RunningService> {
  // ---- files on the blob store (issue 34): TAKELINE_STORAGE_URL, or the data folder itself (today's layout) ----
  const files = new StoredFiles(await openBlobStore(storageLocation(env, layout)), layout);
  // ---- end of files on the blob store ----
  const { sql, dispatch, role } = persistence;
  const database = openStores(sql, dispatch);
  const { projects, sessions, revisions } = database;
  const keys = new SqlKeyStore(sql);
  const jobs = new JobRunner(new SqlJobStore(sql, dispatch), { log, role, storageRetrySeconds: storageRetrySeconds(env) });
  const voices = createVoiceRegistry(env, config);
  // A team's Whisper models are on its storage, recorded in its database (issue 34); this node's copies are in its own
  // Whisper folder. The desktop's are the files of that folder, as ever.
  const teamWhisper =
    role === 'embedded'
      ? undefined
      : new TeamWhisperModels({ store: new SqlWhisperModelStore(sql), blobs: files.blobs, cacheDir: path.join(whisperModelsDir(config), 'team'), log });
  // Engines are listed afresh each time (a Whisper model can be installed while the service runs; a team's is read by refresh).
  const models = new ModelRegistry(
    () => [...installedEngines(env, config, teamWhisper), ...voices.descriptors()],
    teamWhisper && (() => teamWhisper.refresh()),
  );
  const speakers = new SpeakerDirectory(database, spectralVoiceMatcher);
  const analysisStore = new SqlAnalysisStore(sql);
  const analysis = new AnalysisService(database, analysisStore, sessions, jobs);
  // ---- shared secrets (issue 34): the audio-address key in the database every API node reads ----
  const secrets = new SqlSecretStore(sql);
  const audioSecret = await audioUrlSecret(secrets, layout.secrets);
  // The desktop's ETags are new at each start; a team's API nodes share theirs (from the database, with the
  // schema and analysis versions, so an upgrade still changes them), so a poll may go to any node.
  const etagEpoch =
    role === 'embedded'
      ? undefined
      : `${(await secrets.readOrCreate('etag-epoch', () => crypto.randomBytes(6))).toString('base64url')}-${MIGRATIONS.at(-1)!.version}-${ANALYSIS_VERSION}`;
  // ---- end of shared secrets ----
  const dubbing = new Dubbing({ store: new SqlDubStore(sql, dispatch), layout, files, tools, jobs, voices, audioSecret, env, sessions, transcriptRevision: (id) => revisions.current(id) });
  const sessionSpeakers = new SessionSpeakerEditor(database, spectralVoiceMatcher);
  // A team's worker keeps the stretches it has aligned, for the worker that takes its job over if it dies; the desktop
  // aligns inside the request, which nothing resumes after a crash, so it keeps none.
  const alignCheckpoints = role === 'worker' ? new SqlScriptAlignCheckpointStore(sql) : undefined;
  // One denoiser for the service (README, "Background noise"): transcription's noisy chunks and the adaptation
  // statistics of noisy lines, so speaker transforms are learnt from the audio the decoders hear.
  const denoiser = config.denoise ? createRnnoiseDenoiser() : undefined;
  // Likewise for reverberant chunks and lines (README, "Reverberation").
  const dereverberator = config.dereverb ? createWpeDereverberator() : undefined;
  // Each speaker's adaptation state in the database, its files on the blob store (issue 34: any worker adapts and decodes).
  const adaptationStore = new SqlAdaptationStore(sql);
  const adaptation = new SpeakerAdaptation(config.speakerAdaptation, {
    model: resolvePocketSphinxModel(env),
    tools: resolveSphinxtrain(env),
    store: adaptationStore,
    blobs: files.blobs,
    cacheDir: layout.adaptation,
    scratchDir: path.join(layout.scratch, 'adaptation'),
    espeak: env.TAKELINE_ESPEAK_NG || 'espeak-ng',
    log,
  });
  let boundPort = config.port;
  // Word corrections align typed words to the audio; names the dictionary lacks are pronounced by espeak-ng.
  let correctionAligner: ClosableAligner | null = null;
  const wordCorrections = {
    aligner: () => (correctionAligner ??= pocketSphinxAvailable(env).ok ? createPocketSphinxAligner({ env, pronounceUnknown: true, tempDir: layout.scratch }) : null),
    audio: async (id: string, spans: readonly Span[]) => files.withOriginal(id, (await sessions.storedName(id)) ?? '', (file) => decodeSpans(file, tools, spans)),
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
    relearn: (id, within) => queueSpeakerAdaptation(adaptation, jobs, id, within),
    log,
  });
  const transcriptEdits = new TranscriptEditor({ database, speakers: sessionSpeakers, analysis, jobs, ...wordCorrections, learning });

  const context: ServiceContext = {
    config,
    layout,
    files,
    sql,
    database,
    projects,
    sessions,
    keys,
    browserSessions: new SqlBrowserSessionStore(sql),
    jobs,
    tools,
    models,
    whisperModels: new WhisperModelManager({ dir: whisperModelsDir(config), baseUrl: whisperBaseUrl(env), catalogue: whisperCatalogue, team: teamWhisper, log }),
    languages: { resolve: (value, loc) => resolveLanguage(value, models.languages(), loc) },
    signIn: new SqlSignInTokens(sql),
    peaks: new PeaksCache(files, sessions, tools),
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
    documents: new DocumentCache(16, etagEpoch),
    transcriptEdits,
    scriptAlignment: new ScriptAlignment({ sessions, speakers: sessionSpeakers, editor: transcriptEdits, layout, files, tools, env, tempDir: layout.scratch, log, checkpoints: alignCheckpoints }),
    completeTranscript: (id, transcript) =>
      database.transaction(async (stores) => {
        await stores.sessions.complete(id, transcript);
        // A new recognizer transcript starts a new revision history.
        await stores.revisions.discard(id);
        // The analysis is queued in the same transaction.
        const summary = await stores.sessions.summary(id);
        if (summary) await analysis.queue(id, summary.duration, stores);
      }),
    voices,
    dubbing,
    adaptation,
    afterTranscript: async (id) => {
      await speakers.enrol(id);
      await queueSpeakerAdaptation(adaptation, jobs, id);
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
  // Orphaned files go only after a grace period (another node's upload may be on its way); the crash recovery of
  // records is the embedded service's: in team mode workers own the jobs still running (the queue engine hands
  // a dead worker's to another).
  const embedded = role === 'embedded';
  await sweepOrphans(files, layout, sessions);
  // A desktop folder's adaptation files from before move onto the storage; then what no speaker's state names goes.
  const liveSpeakers = async (projectId: string) => new Set((await database.speakers.projectSpeakers(projectId)).map((s) => s.id));
  await moveLegacyAdaptation(layout.adaptation, adaptationStore, (key, file) => files.storeFile(key, file), liveSpeakers, log);
  await sweepAdaptation(files.blobs, adaptationStore, liveSpeakers, { graceMs: role === 'embedded' ? 0 : SWEEP_GRACE_MS });
  if (embedded) await sessions.recoverInterrupted();
  // This node's copies of Whisper models the team no longer has go (deleted through another node while this one was down).
  await teamWhisper?.refresh();
  // A team's nodes keep no studio key (README, "Team deployment"): a browser studio signs in with a one-time link,
  // people and tools with their own keys (`npm run keys`), so no node's data folder holds a full-access key.
  const apiKey = embedded ? await ensureStudioKey(keys, layout.secrets, log) : null;
  registerTranscribeJob(context, jobs, context.afterTranscript);
  registerAnalysisJob(
    { store: analysisStore, sessions, layout, files, tools, modelsDir: config.modelsDir, dictionary: resolvePocketSphinxModel(env).dict, log },
    jobs,
  );
  if (embedded) {
    await analysisStore.recoverInterrupted();
    await dubbing.recover();
  } else await dubbing.sweep(SWEEP_GRACE_MS);
  registerPrepareJob(jobs, { store: dubbing.store, files: dubbing.files, sessions, models, transcription: context.transcription, tools, layout, stored: files, log });
  registerRevoiceJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), log });
  registerTakesJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), log });
  registerSpeakerProfilesJob({ sessions, revisions, layout, files, tools, speakers: sessionSpeakers }, jobs);
  registerScriptAlignment(jobs, context.scriptAlignment, alignCheckpoints, log);
  registerRequestWork(jobs, recordingReplaceWork(transcriptEdits));
  registerSpeakerAdaptationJob({ sessions, speakers: database.speakers, layout, files, tools, adaptation, denoiser, dereverberator, log }, jobs);

  // A team worker serves nothing: it runs the jobs the queue engine delivers.
  const server = role === 'worker' ? null : http.createServer(createApp(context));
  let url = '';
  if (server) {
    // Uploads of long recordings take a while; do not cut them off.
    server.requestTimeout = 0;
    server.keepAliveTimeout = 30_000;
    server.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    boundPort = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${boundPort}`;
    // Where `npm run keys -- signin` points its fresh link (the port may have been picked at random).
    writeFileAtomic(layout.serviceUrl, `${url}\n`);
  }
  await jobs.start();
  // One job at a time per worker process: its heavy work already fills a core (run more workers to scale).
  if (role === 'worker') await persistence.queue?.work((id) => jobs.runDelivered(id), 1);

  let stopped: Promise<void> | null = null;
  return {
    url,
    port: boundPort,
    apiKey,
    context,
    signInUrl: async () => `${url}/auth/signin?token=${await context.signIn.issue()}`,
    stop: () =>
      (stopped ??= (async () => {
        const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
        server?.closeIdleConnections();
        await jobs.stop();
        await context.whisperModels.close();
        await context.transcription.close();
        await context.voices.close();
        await dubbing.close();
        await correctionAligner?.close();
        server?.closeAllConnections();
        await closed;
        await persistence.close();
        files.close();
        if (server) fs.rmSync(layout.serviceUrl, { force: true });
        releaseLock();
      })()),
  };
}
