import fs from 'node:fs';
import type { InferenceSession } from 'onnxruntime-node';
import { verifiedModelFile, type ModelFileSpec } from '../../models/model-files';
import { SAMPLE_RATE } from '../types';
import { chunkPlan, patchCount, type AudioTagger, type TagFrames } from './tagger';

/**
 * Google's YAMNet (AudioSet, 521 classes; Apache-2.0) as the single ONNX graph in
 * `TAKELINE_MODELS_DIR/yamnet` (see its README). The graph holds the log-mel frontend, so it takes the
 * 16 kHz waveform: input `waveform` float32 [N] → `scores` float32 [patches, 521], one row per 0.975 s
 * patch every 0.48 s, the input zero-padded at the end to 15600 + k·7680 samples.
 */

export const YAMNET_MODEL: ModelFileSpec = {
  folder: 'yamnet',
  file: 'yamnet.onnx',
  sha256: 'dc4cc29bef4bdcb8b3883d7f04715a0c6da3d38a1e072cff84229e0014f2bfee',
};
export const YAMNET_CLASS_MAP: ModelFileSpec = {
  folder: 'yamnet',
  file: 'yamnet_class_map.csv',
  sha256: 'cdf24d193e196d9e95912a2667051ae203e92a2ba09449218ccb40ef787c6df2',
};

export const YAMNET_WINDOW_SAMPLES = 15_600;
export const YAMNET_HOP_SAMPLES = 7_680;
const CLASSES = 521;

export interface YamnetOptions {
  /**
   * Patches per model call (default 16 ≈ 7.7 s). The graph computes a full STFT and every patch of its
   * input at once, so memory grows with the input; chunks keep it flat for any length. Measured on an hour
   * (bench/events): +58–100 MB of RSS while tagging with 8–32 patches, +224 MB with 125, at the same CPU
   * per audio second.
   */
  patchesPerChunk?: number;
  /** onnxruntime threads (default 1: the tagger costs little and the other analysis stages share the cores). */
  threads?: number;
}

/** Display names from `yamnet_class_map.csv` (index,mid,display_name; names with commas are quoted). */
export function parseClassMap(csv: string): string[] {
  const rows = csv.split(/\r?\n/).filter((line) => line.trim() !== '');
  const labels: string[] = [];
  for (const row of rows.slice(1)) {
    const match = /^(\d+),([^,]*),(?:"((?:[^"]|"")*)"|(.*))$/.exec(row);
    if (!match) throw new Error(`Unreadable class map row: ${row}`);
    const index = Number(match[1]);
    if (index !== labels.length) throw new Error(`Class map rows out of order at index ${index}`);
    labels.push(match[3] !== undefined ? match[3].replace(/""/g, '"') : match[4]!);
  }
  return labels;
}

type Ort = typeof import('onnxruntime-node');

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('The operation was aborted.');
  error.name = 'AbortError';
  return error;
}

class Yamnet implements AudioTagger {
  readonly id = 'yamnet';
  private loading: Promise<{ ort: Ort; session: InferenceSession; labels: string[] }> | null = null;

  constructor(
    private readonly modelsDir: string | null,
    private readonly options: YamnetOptions,
  ) {}

  /** Checks both files' sha256 and opens the session on first use. */
  private load(): Promise<{ ort: Ort; session: InferenceSession; labels: string[] }> {
    this.loading ??= (async () => {
      const modelPath = verifiedModelFile(this.modelsDir, YAMNET_MODEL);
      const labels = parseClassMap(
        fs.readFileSync(verifiedModelFile(this.modelsDir, YAMNET_CLASS_MAP), 'utf8'),
      );
      if (labels.length !== CLASSES)
        throw new Error(`yamnet_class_map.csv lists ${labels.length} classes, expected ${CLASSES}`);
      const ort = await import('onnxruntime-node');
      const threads = this.options.threads ?? 1;
      const session = await ort.InferenceSession.create(modelPath, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
      });
      return { ort, session, labels };
    })();
    this.loading.catch(() => {
      this.loading = null;
    });
    return this.loading;
  }

  async tag(pcm: Float32Array, signal?: AbortSignal): Promise<TagFrames> {
    if (signal?.aborted) throw abortError(signal);
    const { ort, session, labels } = await this.load();
    const patches = patchCount(pcm.length, YAMNET_WINDOW_SAMPLES, YAMNET_HOP_SAMPLES);
    const scores = new Float32Array(patches * CLASSES);
    for (const chunk of chunkPlan(
      pcm.length,
      YAMNET_WINDOW_SAMPLES,
      YAMNET_HOP_SAMPLES,
      this.options.patchesPerChunk ?? 16,
    )) {
      if (signal?.aborted) throw abortError(signal);
      // onnxruntime reads the tensor's bytes in place; a subarray view needs no copy.
      const input = new ort.Tensor('float32', pcm.subarray(chunk.startSample, chunk.endSample), [
        chunk.endSample - chunk.startSample,
      ]);
      const out = await session.run({ waveform: input }, ['scores']);
      const data = out.scores!.data as Float32Array;
      if (data.length !== chunk.patches * CLASSES) {
        throw new Error(`YAMNet returned ${data.length / CLASSES} patches for a chunk of ${chunk.patches}`);
      }
      scores.set(data, chunk.firstPatch * CLASSES);
      out.scores!.dispose();
    }
    return {
      hop: YAMNET_HOP_SAMPLES / SAMPLE_RATE,
      window: YAMNET_WINDOW_SAMPLES / SAMPLE_RATE,
      labels,
      patches,
      scores,
    };
  }

  async close(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (loading) await (await loading).session.release();
  }
}

/** YAMNet from `modelsDir/yamnet`; nothing is read until the first `tag` (which throws ModelFileError when the files are missing or altered). */
export function createYamnet(modelsDir: string | null, options: YamnetOptions = {}): AudioTagger {
  return new Yamnet(modelsDir, options);
}
