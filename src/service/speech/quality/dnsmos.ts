import type { InferenceSession } from 'onnxruntime-node';
import type { Mos } from '../../../shared/schemas/analysis';
import { type ModelFileSpec, verifiedModelFile } from '../../models/model-files';
import { mosOnScale } from './mos-scale';
import {
  DNSMOS_WINDOW,
  type DnsmosWindowing,
  P808_FRAMES,
  P808_MELS,
  P808_SAMPLES,
  p808LogMel,
  p835FromRaw,
  readWindow,
  windowStarts,
} from './dnsmos-features';

/**
 * Perceived quality as a listener would rate it: DNSMOS, Microsoft (Reddy, Gopal, Cutler, ICASSP
 * 2021/2022), CC BY 4.0, from `TAKELINE_MODELS_DIR/dnsmos` (see its README). Its scores are `heard`.
 */
export interface PerceivedQuality {
  readonly id: string;
  /** Scores one clip of 16 kHz mono audio in [-1, 1] (a line); rejects when `signal` aborts. */
  score(pcm16k: Float32Array, signal?: AbortSignal): Promise<Mos>;
  /**
   * Scores several clips, batching their windows into shared model runs when `batch` > 1 (with two
   * threads a batch of 4 costs ~45% less wall time per window than one at a time). Same results as `score`.
   */
  scoreMany(clips: Float32Array[], signal?: AbortSignal): Promise<Mos[]>;
  /** How many model windows `score` runs for a clip of this many samples (its cost, ~0.4 s of one core each). */
  windowsFor(samples: number): number;
  close(): Promise<void>;
}

export const DNSMOS_FILES = {
  p835: {
    folder: 'dnsmos',
    file: 'sig_bak_ovr.onnx',
    sha256: '269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd',
  },
  p808: {
    folder: 'dnsmos',
    file: 'model_v8.onnx',
    sha256: '9246480c58567bc6affd4200938e77eef49468c8bc7ed3776d109c07456f6e91',
  },
} satisfies Record<string, ModelFileSpec>;

export interface DnsmosOptions {
  /** Which windows of a clip are scored (see dnsmos-features.ts); default `budget`. */
  windowing?: DnsmosWindowing;
  /**
   * onnxruntime intra-op threads. Default 1: the analysis runs beside other stages on a 2-core machine, and
   * a second thread buys only ~12% per single window (~45% when 4 windows are batched), for the same CPU.
   */
  threads?: number;
  /**
   * Windows per model run (across clips in `scoreMany`); default 1. Peak memory grows with it: ~230 MB at
   * 1, ~350 MB at 2, ~560 MB at 4 (the P.835 model's activations), so batch only with memory to spare.
   */
  batch?: number;
  /** onnxruntime's CPU arena: less than half the CPU per window for more memory held (see load()); default off. */
  memArena?: boolean;
}

type Ort = typeof import('onnxruntime-node');

interface Sessions {
  ort: Ort;
  p835: InferenceSession;
  p808: InferenceSession;
}

class Dnsmos implements PerceivedQuality {
  readonly id = 'dnsmos';
  private loading: Promise<Sessions> | null = null;
  private readonly windowing: DnsmosWindowing;
  private readonly batch: number;

  constructor(
    private readonly modelsDir: string | null,
    private readonly options: DnsmosOptions,
  ) {
    this.windowing = options.windowing ?? 'budget';
    this.batch = Math.max(1, Math.floor(options.batch ?? 1));
  }

  private load(): Promise<Sessions> {
    this.loading ??= (async () => {
      // Checked before onnxruntime loads, so a missing or damaged file is reported as such.
      const p835File = verifiedModelFile(this.modelsDir, DNSMOS_FILES.p835);
      const p808File = verifiedModelFile(this.modelsDir, DNSMOS_FILES.p808);
      const ort = await import('onnxruntime-node');
      const threads = Math.max(1, Math.floor(this.options.threads ?? 1));
      const sessionOptions: InferenceSession.SessionOptions = {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        // Off by default: the arena keeps its high-water mark, and grew the analysis process by ~65 MB through the
        // quality stage (analysis-job.test.ts holds it under 50). On, a window costs 0.26 CPU-s instead of 0.69: without
        // it each window's ~100 MB of activations is mapped, faulted in and unmapped again (the analysis process hands
        // large blocks back to the system: analysis-job.ts). docs/benchmarks.md has both.
        enableCpuMemArena: this.options.memArena ?? false,
      };
      const [p835, p808] = await Promise.all([
        ort.InferenceSession.create(p835File, sessionOptions),
        ort.InferenceSession.create(p808File, sessionOptions),
      ]);
      return { ort, p835, p808 };
    })();
    this.loading.catch(() => {
      this.loading = null;
    });
    return this.loading;
  }

  windowsFor(samples: number): number {
    return windowStarts(samples, this.windowing).length;
  }

  async score(pcm16k: Float32Array, signal?: AbortSignal): Promise<Mos> {
    return (await this.scoreMany([pcm16k], signal))[0]!;
  }

  async scoreMany(clips: Float32Array[], signal?: AbortSignal): Promise<Mos[]> {
    const windows = clips.flatMap((pcm, clip) => {
      const starts = windowStarts(pcm.length, this.windowing);
      if (starts.length === 0) throw new RangeError('DNSMOS needs at least one sample of audio per clip');
      return starts.map((start) => ({ clip, start }));
    });
    signal?.throwIfAborted();
    if (windows.length === 0) return [];
    const { ort, p835, p808 } = await this.load();
    const sums = clips.map(() => ({ sig: 0, bak: 0, ovrl: 0, p808: 0, n: 0 }));
    for (let b = 0; b < windows.length; b += this.batch) {
      signal?.throwIfAborted();
      const group = windows.slice(b, b + this.batch);
      const audio = new Float32Array(group.length * DNSMOS_WINDOW);
      const mels = new Float32Array(group.length * P808_FRAMES * P808_MELS);
      group.forEach(({ clip, start }, i) => {
        const window = readWindow(
          clips[clip]!,
          start,
          audio.subarray(i * DNSMOS_WINDOW, (i + 1) * DNSMOS_WINDOW),
        );
        p808LogMel(
          window.subarray(0, P808_SAMPLES),
          mels.subarray(i * P808_FRAMES * P808_MELS, (i + 1) * P808_FRAMES * P808_MELS),
        );
      });
      const [raw, mos808] = await Promise.all([
        p835.run({ input_1: new ort.Tensor('float32', audio, [group.length, DNSMOS_WINDOW]) }),
        p808.run({ input_1: new ort.Tensor('float32', mels, [group.length, P808_FRAMES, P808_MELS]) }),
      ]);
      const r = Object.values(raw)[0]!.data as Float32Array;
      const p = Object.values(mos808)[0]!.data as Float32Array;
      group.forEach(({ clip }, i) => {
        // The reference averages the polynomial-mapped scores of its windows (not the raw outputs).
        const mapped = p835FromRaw(r[3 * i]!, r[3 * i + 1]!, r[3 * i + 2]!);
        const sum = sums[clip]!;
        sum.sig += mapped.sig;
        sum.bak += mapped.bak;
        sum.ovrl += mapped.ovrl;
        sum.p808 += p[i]!;
        sum.n++;
      });
    }
    // The means of the mapped window scores, held to the 1–5 scale (the polynomials can leave it: mos-scale.ts).
    return sums.map(({ sig, bak, ovrl, p808: p, n }) =>
      mosOnScale({
        sig: sig / n,
        bak: bak / n,
        ovrl: ovrl / n,
        p808: p / n,
        source: 'heard',
      }),
    );
  }

  async close(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (!loading) return;
    const sessions = await loading.catch(() => null);
    if (sessions) await Promise.all([sessions.p835.release(), sessions.p808.release()]);
  }
}

/** A DNSMOS engine; model files are verified and loaded on the first `score`. */
export function createDnsmos(modelsDir: string | null, options: DnsmosOptions = {}): PerceivedQuality {
  return new Dnsmos(modelsDir, options);
}
