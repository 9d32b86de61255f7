import type { ChildProcess } from 'node:child_process';
import { forkModule } from '../../module-runners';
import type { WasmSynthesisReply, WasmSynthesisRequest } from './wasm-process';
import { FLITE_ID, FLITE_VOICES } from './flite';
import { SVOX_PICO_ID, SVOX_PICO_VOICES } from './svox-pico';
import { SynthesisError, type SynthesizedSpeech, type Voice } from './voice';

type Request = WasmSynthesisRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/**
 * The synthesis process, started on the first request and kept for the next ones (Pico's voices stay
 * loaded there). A process that dies fails what it was doing; the next request starts a new one.
 */
export class WasmSynthesisProcess {
  private worker: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: SynthesizedSpeech): void; reject(e: Error): void }>();

  run(request: Request, signal?: AbortSignal): Promise<SynthesizedSpeech> {
    signal?.throwIfAborted();
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise<SynthesizedSpeech>((resolve, reject) => {
      // The process is not interrupted mid-sentence; an abort only stops waiting for it.
      const onAbort = () => {
        this.pending.delete(id);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      worker.send({ ...request, id } as WasmSynthesisRequest);
    });
  }

  private ensure(): ChildProcess {
    if (this.worker) return this.worker;
    // --expose-gc: wasm-process.ts collects finished WASI instances between runs. Node 20 warns that WASI is
    // experimental on every start; that warning says nothing to a user.
    const worker = forkModule('./wasm-process', import.meta.url, ['--expose-gc', '--disable-warning=ExperimentalWarning']);
    worker.on('message', (reply: WasmSynthesisReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiting.resolve({ samples: reply.samples, sampleRate: reply.sampleRate });
      else waiting.reject(new SynthesisError(reply.message));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code, signal) => fail(new Error(`the synthesis process exited (${signal ?? `code ${code}`})`)));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker || worker.exitCode !== null || worker.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.kill();
    await exited;
  }
}

/** SVOX Pico in the synthesis process; `files` resolves (and verifies) a voice's lingware on first use. */
export function createSvoxPico(synthesis: WasmSynthesisProcess, files: (voice: string) => [string, string]): Voice {
  return {
    id: SVOX_PICO_ID,
    synthesize(text, options) {
      if (!SVOX_PICO_VOICES.some((v) => v.id === options.voice)) {
        return Promise.reject(new SynthesisError(`svox-pico has no voice "${options.voice}"`));
      }
      return synthesis.run(
        { engine: 'svox-pico', voice: options.voice, files: files(options.voice), text, speed: options.speed ?? 1 },
        options.signal,
      );
    },
    close: async () => undefined,
  };
}

export function createFlite(synthesis: WasmSynthesisProcess): Voice {
  return {
    id: FLITE_ID,
    synthesize(text, options) {
      if (!FLITE_VOICES.some((v) => v.id === options.voice)) {
        return Promise.reject(new SynthesisError(`flite has no voice "${options.voice}"`));
      }
      return synthesis.run({ engine: 'flite', voice: options.voice, text, speed: options.speed ?? 1 }, options.signal);
    },
    close: async () => undefined,
  };
}
