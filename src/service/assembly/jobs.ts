import { registerTranscribeJob } from '../transcription/transcribe-job';
import { createLocalTranscription } from '../transcription/local-engine';
import type { TranscriptionEngine } from '../transcription/engine';
import { spectralVoiceMatcher } from '../speakers/voice-matcher';
import { registerAnalysisJob } from '../analysis/analysis-job';
import { resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { registerSpeakerAdaptationJob } from '../speakers/adaptation-job';
import { createRnnoiseDenoiser } from '../speech/enhancement/rnnoise';
import { createWpeDereverberator } from '../speech/enhancement/reverberant-speech';
import { registerPrepareJob } from '../dubbing/prepare-job';
import { registerRevoiceJob } from '../dubbing/revoice-job';
import { registerTakesJob } from '../dubbing/takes-job';
import { registerSpeakerProfilesJob } from '../speakers/profile-job';
import { registerScriptAlignment } from '../transcription/script-align-work';
import { recordingReplaceWork } from '../transcription/project-replace';
import { registerRequestWork } from '../jobs/request-work';
import { SqlChunkCheckpointStore } from '../storage/chunk-checkpoint-store';
import type { Denoiser, Dereverberator } from '../speech/enhancement/types';
import type { Core } from './core';

/** The engines only the processes that run jobs build: the recognizers, with their denoiser and dereverberator. */
export interface JobEngines {
  transcription: TranscriptionEngine;
  denoiser: Denoiser | undefined;
  dereverberator: Dereverberator | undefined;
  close(): Promise<void>;
}

export function buildJobEngines(core: Core): JobEngines {
  const { config, env, tools, log, layout, adaptation } = core;
  // One denoiser for the process (docs/transcription.md, "Background noise"): transcription's noisy chunks and the adaptation
  // statistics of noisy lines, so speaker transforms are learnt from the audio the decoders hear.
  const denoiser = config.denoise ? createRnnoiseDenoiser() : undefined;
  // Likewise for reverberant chunks and lines (docs/transcription.md, "Reverberation").
  const dereverberator = config.dereverb ? createWpeDereverberator() : undefined;
  const transcription = createLocalTranscription({
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
  });
  return { transcription, denoiser, dereverberator, close: () => transcription.close() };
}

/**
 * Registers every job kind's handler on the core's runner: what a process that runs jobs (the desktop's
 * in-process worker, a team's worker) adds to the core.
 */
export function registerJobHandlers(core: Core, engines: JobEngines): void {
  const { jobs, database, files, layout, tools, log, config, env, dubbing, voices, models, adaptation, sessionSpeakers } = core;
  const { sessions, revisions } = database;
  const { denoiser, dereverberator } = engines;
  registerTranscribeJob(
    {
      database,
      sessions,
      projects: database.projects,
      files,
      models,
      transcription: engines.transcription,
      adaptation,
      checkpoints: new SqlChunkCheckpointStore(core.sql),
      completeTranscript: core.completeTranscript,
      log,
    },
    jobs,
    core.afterTranscript,
  );
  registerAnalysisJob({ store: core.analysisStore, sessions, layout, files, tools, modelsDir: config.modelsDir, dictionary: resolvePocketSphinxModel(env).dict, log }, jobs);
  registerPrepareJob(jobs, { store: dubbing.store, files: dubbing.files, sessions, models, transcription: engines.transcription, tools, layout, stored: files, log });
  registerRevoiceJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), log, renderParallel: config.dubRenderParallel });
  registerTakesJob(jobs, { store: dubbing.store, files: dubbing.files, tools, voices, aligner: () => dubbing.wordAligner(), log, renderParallel: config.dubRenderParallel });
  registerSpeakerProfilesJob({ sessions, revisions, layout, files, tools, speakers: sessionSpeakers }, jobs);
  registerScriptAlignment(jobs, core.scriptAlignment, core.alignCheckpoints);
  registerRequestWork(jobs, recordingReplaceWork(core.transcriptEdits));
  registerSpeakerAdaptationJob({ sessions, speakers: database.speakers, layout, files, tools, adaptation, denoiser, dereverberator, log }, jobs);
}
