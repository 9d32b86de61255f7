import { sileroModelPath } from '../config';
import { decodeAudioToArray } from '../media/decode';
import { ModelFileError } from '../models/model-files';
import { SAMPLE_RATE } from '../speech/types';
import { createSileroVad } from '../speech/vad/silero';
import { levelledSpeech } from '../speech/pipeline/levelled-blocks';
import { measureProsody } from '../speech/prosody/measure';
import { createYamnet } from '../speech/events/yamnet';
import { detectAudienceEvents } from '../speech/events/audience';
import { lineAmbience } from '../speech/events/ambience';
import { noiseProfile, type NoiseProfile } from '../speech/quality/noise-profile';
import { measureLine, toMeasuredQuality, qualityScore, type LineMeasures } from '../speech/quality/line-quality';
import { detectConditions } from '../speech/quality/conditions';
import { createDnsmos } from '../speech/quality/dnsmos';
import { SyllableDictionary } from '../speech/delivery/syllables';
import { createEstimateListener, type Listener } from '../speech/perception/listener';
import type { AnalysisRequest } from './protocol';
import type { AnalysisToolkit, NoiseLike } from './run-analysis';

/**
 * Voice activity for the analysis: Silero's reference settings (0.5, 0.1 s of silence ends speech), finer
 * than the recognizer's, so pauses between phrases count as non-speech for noise floors and levels.
 */
const ANALYSIS_VAD = { threshold: 0.5, minSilenceSeconds: 0.1, minSpeechSeconds: 0.25, speechPadSeconds: 0.03 };

/** The noise profile as stored (JSON): its spectrum as a plain array. */
type StoredNoise = Omit<NoiseProfile, 'spectrum'> & { spectrum: number[] | null };

function storeNoise(profile: NoiseProfile): StoredNoise {
  return { ...profile, spectrum: profile.spectrum ? Array.from(profile.spectrum) : null };
}

function reviveNoise(stored: NoiseLike): NoiseProfile {
  const s = stored as StoredNoise;
  return { ...s, spectrum: s.spectrum ? Float64Array.from(s.spectrum) : null };
}

/**
 * No model-based listener exists for this build (none ships in TAKELINE_MODELS_DIR), so lines are read by the
 * built-in estimate, and the document says nothing listened for perception.
 */
export const ESTIMATE_WARNING =
  'No speech-emotion model is installed: perception, delivery and emphasis are estimated by rules from the measurements (source "estimate"); no model listened to the lines for them.';

/** Says once why an engine did not run, and keeps going without it. */
function warnOnce(warnings: string[], what: string, error: unknown): void {
  const message = error instanceof ModelFileError ? error.message : `${what}: ${(error as Error)?.message ?? String(error)}`;
  if (!warnings.includes(message)) warnings.push(message);
}

/**
 * The real measures and engines behind the analysis, created inside its process. Model-backed
 * engines (YAMNet, DNSMOS) load on first use; when a model is missing or altered the analysis goes on
 * without it and says so in `warnings`. Never claims a model ran when it did not.
 */
export function createToolkit(request: AnalysisRequest): AnalysisToolkit & { close(): Promise<void> } {
  const warnings: string[] = [];
  // In the analysis' own process, which inherits the service's environment.
  const vad = createSileroVad({ ...ANALYSIS_VAD, modelPath: sileroModelPath() });
  const tagger = createYamnet(request.modelsDir);
  const dnsmos = createDnsmos(request.modelsDir);
  let taggerFailed = false;
  let dnsmosFailed = false;
  let dictionary: SyllableDictionary | null = null;
  let listener: Listener | null = null;

  return {
    warnings,
    decode: (signal) => decodeAudioToArray(request.file, request.tools, { signal, durationHint: request.duration }),
    // Levelled as transcription levels it, so a quiet recording's speech is still found. A run asks once, so
    // the model (its session and onnxruntime's arena) is let go at once rather than held through the run;
    // it would load again if asked again.
    async detectSpeech(pcm) {
      try {
        return await levelledSpeech(vad, pcm);
      } finally {
        await vad.close();
      }
    },
    async tag(pcm, signal) {
      if (taggerFailed) return null;
      try {
        return await tagger.tag(pcm, signal);
      } catch (error) {
        if (signal?.aborted || !(error instanceof ModelFileError)) throw error;
        taggerFailed = true;
        warnOnce(warnings, 'audience events', error);
        return null;
      } finally {
        // Asked once per run, like the speech: YAMNet's session goes before the stages that follow.
        await tagger.close();
      }
    },
    audience: (tags, speech, lines, levels, duration) => detectAudienceEvents(tags, speech, lines, { levels, duration }),
    noise: (pcm, speech) => storeNoise(noiseProfile(pcm, SAMPLE_RATE, speech)),
    lineQuality: (pcm, line, speech, noise) => measureLine(pcm, SAMPLE_RATE, line, speech, reviveNoise(noise)),
    conditions: (pcm, speech, lines, noise, measures) =>
      detectConditions(pcm, SAMPLE_RATE, speech, lines, { noise: reviveNoise(noise), measures: measures as LineMeasures[] }),
    quality: (measures) => toMeasuredQuality(measures as LineMeasures),
    prosody: (pcm, line, speech) => measureProsody(pcm, SAMPLE_RATE, line, speech.length ? speech : undefined),
    async perceivedQuality(pcm, signal) {
      if (dnsmosFailed) return null;
      try {
        return await dnsmos.score(pcm, signal);
      } catch (error) {
        if (signal?.aborted || !(error instanceof ModelFileError)) throw error;
        dnsmosFailed = true;
        warnOnce(warnings, 'perceived quality', error);
        return null;
      }
    },
    qualityScore: (measured, mos) => qualityScore(measured, mos),
    ambience: (tags, line, speech, levels) => lineAmbience(line, { levels, tags, speech }),
    // Only the transcript's words are ever counted (delivery/pace.ts, perception/words.ts).
    syllables: () => (dictionary ??= SyllableDictionary.load(request.dictionary, request.lines.flatMap((l) => l.words.map((w) => w.word)))),
    listener() {
      if (!listener) {
        if (!warnings.includes(ESTIMATE_WARNING)) warnings.push(ESTIMATE_WARNING);
        listener = createEstimateListener();
      }
      return listener;
    },
    async close() {
      await Promise.allSettled([vad.close(), tagger.close(), dnsmos.close()]);
    },
  };
}

