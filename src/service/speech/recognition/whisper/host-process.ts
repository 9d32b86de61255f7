import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WhisperParams } from './params';
import type { HostReply, HostRequest } from './protocol';
import type { WhisperSegment } from './result';

export interface WhisperHostOptions {
  modelFile: string;
  /** The process (and the model's memory) is released after this long without work. Default 300 s. */
  idleSeconds?: number;
}

interface Call {
  pcm: Float32Array;
  params: WhisperParams;
  signal?: AbortSignal;
  resolve(segments: WhisperSegment[]): void;
  reject(error: unknown): void;
  onAbort?: () => void;
}

interface Running {
  child: ChildProcess;
  ready: Promise<void>;
  /** The last lines whisper.cpp printed, for error messages. */
  stderr: string[];
  exited: boolean;
  loaded: boolean;
}

/** A model that cannot be loaded (missing, damaged, not a ggml file) or a host that stopped. */
export class WhisperHostError extends Error {}

function abortError(signal: AbortSignal): unknown {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('The transcription was aborted.');
  error.name = 'AbortError';
  return error;
}

/**
 * Runs one model in a child process (host.ts) and hands it one chunk at a time. Cancelling the chunk being
 * decoded kills the process (whisper.cpp has no way to stop a call); the next chunk starts a new one.
 * Chunks still waiting are dropped without reaching the process.
 */
export class WhisperHostProcess {
  private running: Running | null = null;
  private readonly waiting: Call[] = [];
  private current: Call | null = null;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: WhisperHostOptions) {}

  transcribe(pcm: Float32Array, params: WhisperParams, signal?: AbortSignal): Promise<WhisperSegment[]> {
    if (this.closed) return Promise.reject(new WhisperHostError('The Whisper engine was closed.'));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<WhisperSegment[]>((resolve, reject) => {
      const call: Call = { pcm, params, signal, resolve, reject };
      call.onAbort = () => this.abort(call);
      signal?.addEventListener('abort', call.onAbort, { once: true });
      this.waiting.push(call);
      this.pump();
    });
  }

  /** True while a process is up (for tests and diagnostics). */
  get alive(): boolean {
    return this.running !== null && !this.running.exited;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
    for (const call of this.waiting.splice(0)) this.settle(call, new WhisperHostError('The Whisper engine was closed.'));
    if (this.current) this.settle(this.current, new WhisperHostError('The Whisper engine was closed.'));
    this.current = null;
    await this.stop();
  }

  private abort(call: Call): void {
    const queued = this.waiting.indexOf(call);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.settle(call, abortError(call.signal!));
      return;
    }
    if (this.current === call) {
      this.current = null;
      this.settle(call, abortError(call.signal!));
      // whisper.cpp cannot stop mid-call: end the process, the next chunk starts a fresh one.
      this.running?.child.kill('SIGKILL');
      this.running = null;
      this.pump();
    }
  }

  private settle(call: Call, error: unknown, segments?: WhisperSegment[]): void {
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    if (error === null) call.resolve(segments ?? []);
    else call.reject(error);
  }

  private pump(): void {
    if (this.current || this.closed) return;
    const call = this.waiting.shift();
    if (!call) {
      this.armIdle();
      return;
    }
    this.clearIdle();
    this.current = call;
    const host = this.running && !this.running.exited ? this.running : (this.running = this.start());
    const id = this.nextId++;
    const finish = (error: unknown, segments?: WhisperSegment[]) => {
      if (this.current !== call) return; // aborted meanwhile
      host.child.off('message', onMessage);
      host.child.off('close', onExit);
      this.current = null;
      this.settle(call, error, segments);
      this.pump();
    };
    const onMessage = (reply: HostReply) => {
      if (reply.type === 'result' && reply.id === id) finish(null, reply.segments);
      else if (reply.type === 'failed' && reply.id === id) finish(new WhisperHostError(`Whisper failed: ${reply.message}`));
    };
    const onExit = () =>
      finish(new WhisperHostError(host.loaded ? this.exitMessage(host) : `The Whisper model could not be loaded: ${this.exitMessage(host)}`));
    host.child.on('message', onMessage);
    // 'close' comes after 'exit' once stderr is drained, so the message has whisper.cpp's last words.
    host.child.on('close', onExit);
    host.ready.then(
      () => {
        if (this.current !== call || host.exited) return;
        const request: HostRequest = { type: 'transcribe', id, pcm: call.pcm, params: call.params };
        host.child.send(request);
      },
      (error: unknown) => finish(error),
    );
  }

  private start(): Running {
    const self = fileURLToPath(import.meta.url);
    const ext = path.extname(self);
    const child = fork(path.join(path.dirname(self), `host${ext}`), [this.options.modelFile], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Run from sources (tests, `npm run serve`), the host is TypeScript too; in the build it is JavaScript.
      execArgv: ext === '.ts' ? ['--import', 'tsx'] : [],
    });
    const running: Running = { child, ready: Promise.resolve(), stderr: [], exited: false, loaded: false };
    let partial = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      running.stderr.push(...lines.filter((l) => l.trim() !== ''));
      if (running.stderr.length > 40) running.stderr.splice(0, running.stderr.length - 40);
    });
    running.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (reply: HostReply) => {
        if (reply.type === 'ready') {
          running.loaded = true;
          resolve();
        }
        else if (reply.type === 'failed' && reply.id === null) reject(new WhisperHostError(`The Whisper model could not be loaded: ${reply.message}`));
      };
      child.on('message', onMessage);
      child.once('close', () => {
        child.off('message', onMessage);
        reject(new WhisperHostError(`The Whisper model could not be loaded: ${this.exitMessage(running)}`));
      });
      child.once('error', (error) => reject(new WhisperHostError(`The Whisper process could not start: ${error.message}`)));
    });
    running.ready.catch(() => {});
    child.once('exit', () => {
      running.exited = true;
      if (this.running === running) this.running = null;
    });
    return running;
  }

  private exitMessage(host: Running): string {
    const { exitCode, signalCode } = host.child;
    const how = signalCode ? `signal ${signalCode}` : `exit code ${exitCode}`;
    const said = host.stderr.filter((l) => !/^\s*(whisper_|ggml_|system_info)/.test(l)).slice(-2);
    const last = said.length ? said : host.stderr.slice(-2);
    return `the Whisper process stopped (${how})${last.length ? `: ${last.join(' / ')}` : ''}`;
  }

  private armIdle(): void {
    this.clearIdle();
    if (!this.running) return;
    this.idleTimer = setTimeout(() => void this.stop(), (this.options.idleSeconds ?? 300) * 1000);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private async stop(): Promise<void> {
    const host = this.running;
    this.running = null;
    if (!host || host.exited) return;
    const exited = new Promise<void>((resolve) => host.child.once('exit', () => resolve()));
    host.child.kill('SIGKILL');
    await exited;
  }
}
