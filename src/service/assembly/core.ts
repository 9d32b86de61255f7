import crypto from 'node:crypto';
import path from 'node:path';
import type { ServiceConfig } from '../config';
import type { DataLayout } from '../storage/files';
import { openStores, type Database } from '../storage/stores';
import { SqlKeyStore } from '../storage/key-store';
import { JobRunner } from '../jobs/job-runner';
import type { WorkerAdapter } from '../jobs/worker-adapter';
import type { MediaTools } from '../media/tools';
import { ModelRegistry } from '../models/registry';
import { installedEngines } from '../models/engines';
import { SWEEP_GRACE_MS, sweepOrphans, TRANSCRIBE_JOB } from '../recordings/intake';
import { showTranscriptionWaiting } from '../transcription/transcribe-job';
import { stopStaleProcesses } from '../jobs/stale-processes';
import { SpeakerDirectory } from '../speakers/speaker-directory';
import { spectralVoiceMatcher } from '../speakers/voice-matcher';
import { SqlAnalysisStore } from '../storage/analysis-store';
import { SqlJobStore } from '../storage/job-store';
import { SqlDubStore } from '../storage/dub-store';
import type { Persistence } from '../persistence';
import { AnalysisService } from '../analysis/analysis-service';
import { ANALYSIS_JOB } from '../analysis/analysis-job';
import { pocketSphinxAvailable, resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { createPocketSphinxAligner, type ClosableAligner } from '../speech/alignment/pocketsphinx-aligner';
import { decodeSpans } from '../media/decode-spans';
import type { Span, Transcript } from '../speech/types';
import { resolveSphinxtrain } from '../speech/recognition/pocketsphinx/adaptation';
import { SpeakerAdaptation } from '../speakers/speaker-adaptation';
import { queueSpeakerAdaptation } from '../speakers/adaptation-job';
import { sweepAdaptation } from '../speakers/adaptation-files';
import { moveLegacyAdaptation } from '../speakers/legacy-adaptation';
import { SqlAdaptationStore } from '../storage/adaptation-store';
import { correctionLearning } from '../transcription/correction-learning';
import { createVoiceRegistry } from '../speech/synthesis/catalog';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import { Dubbing } from '../dubbing/dubbing';
import { whisperModelsDir } from '../models/whisper/catalogue';
import { TeamWhisperModels } from '../models/whisper/team-models';
import { SqlWhisperModelStore } from '../storage/whisper-model-store';
import { SessionSpeakerEditor } from '../speakers/session-speakers';
import { TranscriptEditor } from '../transcription/transcript-edits';
import { ScriptAlignment } from '../transcription/script-align';
import { SqlScriptAlignCheckpointStore } from '../storage/script-align-checkpoint-store';
import { StoredFiles } from '../storage/stored-files';
import { audioUrlSecret, SqlSecretStore } from '../storage/secret-store';
import { openBlobStore, storageLocation } from '../storage/blobs/open-blob-store';
import type { Sql } from '../storage/sql/sql';
import type { KeyStore } from '../storage/key-store';
import { storageRetrySeconds } from '../jobs/storage-retry';
import type { ServiceMetrics } from '../metrics/service-metrics';
import type { MetricsConfig } from '../metrics/metrics-config';
import { countedBlobStore } from '../metrics/counted-blob-store';
import { setUpOperations } from '../metrics/operations';
import type { OperationsDeps } from '../metrics/operations-routes';

/** What every role starts from: its configuration, its folders and its records. */
export interface CoreInput {
  config: ServiceConfig;
  env: NodeJS.ProcessEnv;
  layout: DataLayout;
  tools: MediaTools;
  log: (line: string) => void;
  persistence: Persistence;
  /** This process's metrics (`/metrics`) and how they are served. */
  metrics: { metrics: ServiceMetrics; config: MetricsConfig };
}

/**
 * What every role builds (the desktop, a team's API node and its worker): the stores, the stored files, the
 * queue's producer side and the services over them. Engines that only handlers use (recognizers, voices'
 * rendering, aligners of jobs) are not here: `jobs.ts` builds them, in the processes that run jobs.
 */
export interface Core {
  config: ServiceConfig;
  env: NodeJS.ProcessEnv;
  layout: DataLayout;
  tools: MediaTools;
  log: (line: string) => void;
  /** A team's node (PostgreSQL, pg-boss, the shared volume) rather than the desktop. */
  team: boolean;
  /** The records behind the stores; only the assembly and the job handlers' own stores reach for it. */
  sql: Sql;
  files: StoredFiles;
  database: Database;
  keys: KeyStore;
  jobs: JobRunner;
  /** Text-to-speech engines: listed always (the models list names them), loaded on first use. */
  voices: VoiceRegistry;
  models: ModelRegistry;
  /** A team's Whisper models on its storage (undefined on the desktop, whose models are the folder's files). */
  teamWhisper: TeamWhisperModels | undefined;
  speakers: SpeakerDirectory;
  sessionSpeakers: SessionSpeakerEditor;
  analysisStore: SqlAnalysisStore;
  analysis: AnalysisService;
  secrets: SqlSecretStore;
  audioSecret: Buffer;
  dubbing: Dubbing;
  adaptationStore: SqlAdaptationStore;
  adaptation: SpeakerAdaptation;
  transcriptEdits: TranscriptEditor;
  scriptAlignment: ScriptAlignment;
  /** The stretches a team worker's script alignment has aligned, for the worker that takes its job over if it dies. */
  alignCheckpoints: SqlScriptAlignCheckpointStore | undefined;
  /** Stores a finished transcript and queues its analysis, in one transaction. */
  completeTranscript(sessionId: string, transcript: Transcript): Promise<void>;
  /** Files a finished transcript's speakers into the project's known speakers and queues their adaptation. */
  afterTranscript(sessionId: string): Promise<void>;
  /** Closes what the core opened (not the persistence: its owner closes it). */
  /** What `/metrics` and `/readyz` read, wherever they are served. */
  operations: OperationsDeps;
  close(): Promise<void>;
}

/** Kinds that wait behind all others (`JobKindOptions.background`), known to every producer, not only to workers. */
const BACKGROUND_KINDS = [ANALYSIS_JOB];

export interface CoreOptions {
  /**
   * Who runs jobs in this process: the desktop's in-process worker (absent), a team worker's queue adapter, or
   * none (null: a team's API node).
   */
  worker?: WorkerAdapter | null;
  /** A team's worker keeps the stretches a script alignment has aligned, for the worker that takes its job over if it dies. */
  alignCheckpoints?: boolean;
}

export async function buildCore(input: CoreInput, options: CoreOptions = {}): Promise<Core> {
  const { config, env, layout, tools, log, persistence } = input;
  const { metrics } = input.metrics;
  const files = new StoredFiles(countedBlobStore(await openBlobStore(storageLocation(env, layout)), (operation) => metrics.storageErrors.inc({ operation })), layout);
  const { sql, dispatch } = persistence;
  const team = persistence.role !== 'embedded';
  const database = openStores(sql, dispatch);
  const { sessions, revisions } = database;
  const keys = new SqlKeyStore(sql, config.roleMap);
  const jobStore = new SqlJobStore(sql, dispatch);
  const jobs = new JobRunner(jobStore, { log, worker: options.worker, backgroundKinds: BACKGROUND_KINDS, storageRetrySeconds: storageRetrySeconds(env) });
  // A transcription's waiting shows on its recording in every role (an API node marks one waiting for a worker).
  jobs.displayWaiting(TRANSCRIBE_JOB, showTranscriptionWaiting(sessions));
  const { queue } = persistence;
  const operations = setUpOperations({ metrics, config: input.metrics.config, sql, jobStore, runner: jobs, blobs: files.blobs, workers: queue ? () => queue.workers() : undefined, log });
  const voices = createVoiceRegistry(env, config);
  // A team's Whisper models are on its storage, recorded in its database; this node's copies are in its own
  // Whisper folder. The desktop's are the files of that folder, as ever.
  const teamWhisper = team
    ? new TeamWhisperModels({ store: new SqlWhisperModelStore(sql), blobs: files.blobs, cacheDir: path.join(whisperModelsDir(config), 'team'), log })
    : undefined;
  // Engines are listed afresh each time (a Whisper model can be installed while the service runs; a team's is read by refresh).
  const models = new ModelRegistry(
    () => [...installedEngines(env, config, teamWhisper), ...voices.descriptors()],
    teamWhisper && (() => teamWhisper.refresh()),
  );
  const speakers = new SpeakerDirectory(database, spectralVoiceMatcher);
  const analysisStore = new SqlAnalysisStore(sql);
  const analysis = new AnalysisService(database, analysisStore, sessions, jobs);
  // The audio-address key is in the database every API node reads.
  const secrets = new SqlSecretStore(sql);
  const audioSecret = await audioUrlSecret(secrets, layout.secrets);
  const dubbing = new Dubbing({ store: new SqlDubStore(sql, dispatch), layout, files, tools, jobs, voices, audioSecret, env, sessions, transcriptRevision: (id) => revisions.current(id) });
  const sessionSpeakers = new SessionSpeakerEditor(database, spectralVoiceMatcher);
  // Each speaker's adaptation state in the database, its files on the blob store (any worker adapts and decodes).
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
  // Word corrections align typed words to the audio; names the dictionary lacks are pronounced by espeak-ng.
  // Built on first use only.
  let correctionAligner: ClosableAligner | null = null;
  const wordCorrections = {
    aligner: () => (correctionAligner ??= pocketSphinxAvailable(env).ok ? createPocketSphinxAligner({ env, pronounceUnknown: true, tempDir: layout.scratch }) : null),
    audio: async (id: string, spans: readonly Span[]) => files.withOriginal(id, (await sessions.storedName(id)) ?? '', (file) => decodeSpans(file, tools, spans)),
  };
  // Corrections teach the recognizer (docs/transcription.md, "Corrections teach the recognizer").
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
  // The desktop aligns inside the request, which nothing resumes after a crash, so it keeps no checkpoints.
  const alignCheckpoints = options.alignCheckpoints ? new SqlScriptAlignCheckpointStore(sql) : undefined;
  const scriptAlignment = new ScriptAlignment({ sessions, speakers: sessionSpeakers, editor: transcriptEdits, layout, files, tools, env, tempDir: layout.scratch, log, checkpoints: alignCheckpoints });

  return {
    config,
    env,
    layout,
    tools,
    log,
    team,
    sql,
    files,
    database,
    keys,
    jobs,
    voices,
    models,
    teamWhisper,
    speakers,
    sessionSpeakers,
    analysisStore,
    analysis,
    secrets,
    audioSecret,
    dubbing,
    adaptationStore,
    adaptation,
    transcriptEdits,
    scriptAlignment,
    alignCheckpoints,
    operations,
    completeTranscript: (id, transcript) =>
      database.transaction(async (stores) => {
        await stores.sessions.complete(id, transcript);
        // A new recognizer transcript starts a new revision history.
        await stores.revisions.discard(id);
        // The analysis is queued in the same transaction.
        const summary = await stores.sessions.summary(id);
        if (summary) await analysis.queue(id, summary.duration, stores);
      }),
    afterTranscript: async (id) => {
      await speakers.enrol(id);
      await queueSpeakerAdaptation(adaptation, jobs, id);
    },
    close: async () => {
      await voices.close();
      await dubbing.close();
      await correctionAligner?.close();
    },
  };
}

/** A fresh start's tidying, the same in every role: what a crashed run left in this node's folders and on the storage. */
export async function tidyAtStart(core: Core): Promise<void> {
  const { layout, files, database, adaptationStore, log } = core;
  // Leftover decoders of a crashed run first: they hold files in the scratch folder the sweep empties.
  stopStaleProcesses(layout.scratch, log);
  // Orphaned files go only after a grace period (another node's upload may be on its way).
  await sweepOrphans(files, layout, database.sessions);
  // A desktop folder's adaptation files from before move onto the storage; then what no speaker's state names goes.
  const liveSpeakers = async (projectId: string) => new Set((await database.speakers.projectSpeakers(projectId)).map((s) => s.id));
  await moveLegacyAdaptation(layout.adaptation, adaptationStore, (key, file) => files.storeFile(key, file), liveSpeakers, log);
  await sweepAdaptation(files.blobs, adaptationStore, liveSpeakers, { graceMs: core.team ? SWEEP_GRACE_MS : 0 });
}

/**
 * What a team's node (API node or worker) does at start: the shared tidying, then what another node deleted while
 * this one was down. Records are not recovered here: workers own the jobs still running (the queue engine hands
 * a dead worker's to another). A team's nodes keep no studio key (docs/team-server.md, "Keys and users").
 */
export async function teamNodeAtStart(core: Core): Promise<void> {
  await tidyAtStart(core);
  // This node's copies of Whisper models the team no longer has go (deleted through another node while this one was down).
  await core.teamWhisper?.refresh();
  await core.dubbing.sweep(SWEEP_GRACE_MS);
}

/** A team's nodes share their ETags (from the database, with the schema and analysis versions, so an upgrade still changes them). */
export async function sharedEtagEpoch(secrets: SqlSecretStore, schemaVersion: number, analysisVersion: string): Promise<string> {
  return `${(await secrets.readOrCreate('etag-epoch', () => crypto.randomBytes(6))).toString('base64url')}-${schemaVersion}-${analysisVersion}`;
}
