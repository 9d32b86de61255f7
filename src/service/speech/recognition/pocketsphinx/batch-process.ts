import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PocketSphinxModel } from './model';
import { parseCtm, parseHypsegLine, type CtmWord, type HypsegUtterance } from './output';
import { lowerProcessPriority } from '../../../jobs/background-priority';
import { featureStreamLengths, identityMllr } from './mllr-file';
import { processCpuSeconds, watchdogVerdict } from './watchdog';
import { AbortError, OneJobProcess } from '../../../process-pool';

/**
 * One long-lived `pocketsphinx_batch` process that decodes many utterances, so the model and dictionary
 * load (about 0.3 s and 110 MB) is paid once per worker rather than per chunk.
 *
 * Why the command-line program and not a native addon on libpocketsphinx: an addon would have to be
 * compiled at `npm ci`, which fails on any machine without a compiler and libpocketsphinx-dev (and
 * would tie the Electron build to the system library's ABI). The Debian program is already there when
 * the model is, and the protocol below costs nothing measurable next to the decode itself.
 *
 * Protocol: `-ctl` is a named pipe, so the program blocks reading its control file until we write
 * the next utterance id (Node's own stdio pipes are sockets, which the program cannot fopen). Each
 * utterance is a raw 16-bit file in a private temp folder (`-adcin yes`). Results go to the `-hypseg`
 * and `-ctm` files, which the program writes unbuffered; its log line `<uttid> done ----` on stderr
 * comes after both, so reading the files' new bytes then is race-free. With `grammar` set, a second
 * pipe feeds `-fsgctl`: one finite-state grammar file per utterance (forced alignment). With `mllr` set,
 * a pipe feeds `-mllrctl`: one MLLR transform per utterance (a speaker's acoustic adaptation), the
 * identity transform for utterances without one. The program reloads the model's means and variances
 * before applying a transform whose file name differs from the previous utterance's (verified: an
 * utterance decoded with the identity after one with a transform gets the un-adapted words and score
 * exactly), and skips the reload when the name is the same; so every transform version is copied under a
 * fresh name, and a transform replaced on disk is never mistaken for the one loaded.
 */
export interface BatchProcessOptions {
  model: PocketSphinxModel;
  /** Decoder flags as name → value (`{ '-lw': '10' }`). */
  args: Record<string, string>;
  /** Decode against one grammar per utterance instead of the language model. */
  grammar?: boolean;
  /** Take a per-utterance MLLR transform (`-mllrctl`); decode() without one uses the identity. */
  mllr?: boolean;
  /** Restart after this many utterances, which bounds the output files and decoder state. */
  maxUtterances?: number;
  /**
   * Where the process's private folder (the utterances' audio) goes; default the OS temp folder. The
   * service gives its data folder's scratch, which start-up empties after a crash.
   */
  tempDir?: string;
}

export interface UtteranceResult {
  /** Every token the decoder output, fillers included; null if it found no path at all. */
  hypseg: HypsegUtterance | null;
  /** Real words with posteriors. */
  words: CtmWord[];
}

interface ActiveJob {
  uttid: string;
  resolve: (r: UtteranceResult) => void;
  reject: (e: Error) => void;
}

/** Log lines that mean the utterance will not be decoded (the program then skips it silently). */
const JOB_FAILURE = /^(ERROR|FATAL).*(batch\.c|fsg_model\.c|missing in the dictionary|Failed to)/;

export class BatchProcess extends OneJobProcess<ActiveJob> {
  protected readonly programName = 'decoder';
  private ctlFd = -1;
  private fsgFd = -1;
  private mllrFd = -1;
  /** The transform loaded in the program: its source (path, size, mtime; '' = identity) and copy's name. */
  private mllrLoaded: { key: string; file: string } | null = null;
  private mllrCopies = 0;
  private streamLengths: number[] | null = null;
  private hypsegFd = -1;
  private ctmFd = -1;
  private hypsegOffset = 0;
  private ctmOffset = 0;
  private counter = 0;
  private stderrTail: string[] = [];
  private partial = '';

  constructor(private readonly options: BatchProcessOptions) {
    super();
  }

  get busy(): boolean {
    return this.active !== null;
  }

  /**
   * Decodes one utterance of 16-bit little-endian samples; `grammar` is FSG text (grammar mode only);
   * `mllr` the path of an MLLR transform file (mllr mode only; none = the un-adapted model).
   */
  async decode(samples: Buffer, grammar?: string, signal?: AbortSignal, mllr?: string): Promise<UtteranceResult> {
    if (this.active) throw new Error('BatchProcess is busy; decode one utterance at a time');
    if (signal?.aborted) throw new AbortError();
    if (Boolean(grammar) !== Boolean(this.options.grammar)) {
      throw new Error(this.options.grammar ? 'grammar mode needs a grammar' : 'not started in grammar mode');
    }
    if (mllr && !this.options.mllr) throw new Error('not started with per-utterance MLLR transforms');
    if (this.child && this.counter >= (this.options.maxUtterances ?? 300)) this.stop();
    if (!this.child) this.start();
    // Read before anything is queued: a transform that cannot be read fails this utterance alone.
    const mllrFile = this.options.mllr ? this.mllrFileFor(mllr) : null;

    const uttid = `u${++this.counter}`;
    const rawPath = path.join(this.dir, `${uttid}.raw`);
    writeFileSync(rawPath, samples);
    const done = new Promise<UtteranceResult>((resolve, reject) => {
      this.active = { uttid, resolve, reject };
    });
    // Generous watchdog: PocketSphinx runs well under real time here; a stuck decoder must not hang callers.
    // Each time the limit passes, the decoder's CPU time tells stuck from starved (watchdog.ts): at a lower
    // priority on a loaded machine a first chunk once took longer than the limit and failed the transcription.
    const seconds = samples.length / 2 / 16_000;
    const limit = 30 + seconds * 10;
    const pid = this.child!.pid;
    const cpuAtStart = pid === undefined ? null : processCpuSeconds(pid);
    let cpuAtLastCheck = cpuAtStart;
    const check = () => {
      const now = pid === undefined ? null : processCpuSeconds(pid);
      const cpu = cpuAtStart === null || cpuAtLastCheck === null || now === null ? null : { atStart: cpuAtStart, atLastCheck: cpuAtLastCheck, now };
      if (watchdogVerdict(cpu, limit) === 'fail') {
        const how = cpu ? ` (${(cpu.now - cpu.atStart).toFixed(1)} s of CPU, ${(cpu.now - cpu.atLastCheck).toFixed(2)} s in the last ${limit.toFixed(0)} s)` : '';
        this.fail(new Error(`pocketsphinx timed out on ${seconds.toFixed(1)} s${how}`));
      } else {
        cpuAtLastCheck = now;
        timer = setTimeout(check, limit * 1000);
      }
    };
    let timer = setTimeout(check, limit * 1000);
    const onAbort = () => this.fail(new AbortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (grammar) {
        // Two names alternate: the program replaces a grammar by name, and must never replace the one in use.
        const fsgPath = path.join(this.dir, `g${this.counter % 2}.fsg`);
        writeFileSync(fsgPath, grammar);
        writeSync(this.fsgFd, `${fsgPath}\n`);
      }
      if (mllrFile) writeSync(this.mllrFd, `${mllrFile}\n`);
      writeSync(this.ctlFd, `${uttid}\n`);
      return await done;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      rmSync(rawPath, { force: true });
    }
  }

  /** The name to send for this utterance's transform: the loaded one's when unchanged, else a fresh copy. */
  private mllrFileFor(source: string | undefined): string {
    let key = '';
    if (source) {
      const st = statSync(source);
      key = `${source}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
    }
    if (this.mllrLoaded?.key === key) return this.mllrLoaded.file;
    const file = path.join(this.dir, `m${++this.mllrCopies}.mllr`);
    if (source) copyFileSync(source, file);
    else writeFileSync(file, identityMllr((this.streamLengths ??= featureStreamLengths(this.options.model.hmm))));
    // The program has read the previous copy when it loaded it, and only compares names afterwards.
    if (this.mllrLoaded) rmSync(this.mllrLoaded.file, { force: true });
    this.mllrLoaded = { key, file };
    return file;
  }

  protected start(): void {
    const { model, args, grammar, mllr } = this.options;
    this.dir = mkdtempSync(path.join(this.options.tempDir ?? os.tmpdir(), 'takeline-pocketsphinx-'));
    const ctl = path.join(this.dir, 'ctl.fifo');
    const fsgctl = path.join(this.dir, 'fsg.fifo');
    const mllrctl = path.join(this.dir, 'mllr.fifo');
    execFileSync('mkfifo', [ctl, ...(grammar ? [fsgctl] : []), ...(mllr ? [mllrctl] : [])]);
    const hypseg = path.join(this.dir, 'out.hypseg');
    const ctm = path.join(this.dir, 'out.ctm');
    const argv = [
      '-hmm',
      model.hmm,
      '-dict',
      model.dict,
      ...(grammar ? ['-fsgctl', fsgctl] : ['-lm', model.lm]),
      ...(mllr ? ['-mllrctl', mllrctl] : []),
      '-ctl',
      ctl,
      '-adcin',
      'yes',
      '-cepdir',
      this.dir,
      '-cepext',
      '.raw',
      '-hypseg',
      hypseg,
      '-ctm',
      ctm,
      ...Object.entries(args).flat(),
    ];
    const child = spawn(model.batch, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    lowerProcessPriority(child.pid);
    this.child = child;
    // Read-write opens of a FIFO never block, and keep it open for the program between utterances.
    this.ctlFd = openSync(ctl, 'r+');
    if (grammar) this.fsgFd = openSync(fsgctl, 'r+');
    if (mllr) this.mllrFd = openSync(mllrctl, 'r+');
    this.mllrLoaded = null;
    this.mllrCopies = 0;
    writeFileSync(hypseg, '');
    writeFileSync(ctm, '');
    this.hypsegFd = openSync(hypseg, 'r');
    this.ctmFd = openSync(ctm, 'r');
    this.hypsegOffset = 0;
    this.ctmOffset = 0;
    this.counter = 0;
    this.stderrTail = [];
    this.partial = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => this.onStderr(chunk));
    child.on('error', (err) => this.onExit(child, `could not run ${model.batch}: ${err.message}`));
    child.on('exit', (code, sig) => this.onExit(child, `pocketsphinx_batch exited (${sig ?? code})`));
  }

  private onStderr(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 40) this.stderrTail.shift();
      const job = this.active;
      if (!job) continue;
      if (line.startsWith(`${job.uttid} done `)) {
        this.active = null;
        try {
          job.resolve(this.collect(job.uttid));
        } catch (err) {
          job.reject(err as Error);
        }
      } else if (JOB_FAILURE.test(line)) {
        // The program skips a failed utterance without a "done" line; restart it to stay in step.
        this.fail(new Error(`pocketsphinx could not decode the utterance: ${line}`));
      }
    }
  }

  private collect(uttid: string): UtteranceResult {
    const hypsegText = this.readNew('hypseg');
    const ctmText = this.readNew('ctm');
    const line = hypsegText.split('\n').find((l) => l.startsWith(`${uttid} `));
    let hypseg: HypsegUtterance | null = null;
    try {
      hypseg = line ? parseHypsegLine(line) : null;
    } catch {
      hypseg = null; // an utterance with no path at all prints a truncated line
    }
    return { hypseg: hypseg && hypseg.tokens.length ? hypseg : null, words: parseCtm(ctmText) };
  }

  private readNew(which: 'hypseg' | 'ctm'): string {
    const fd = which === 'hypseg' ? this.hypsegFd : this.ctmFd;
    const chunks: Buffer[] = [];
    let offset = which === 'hypseg' ? this.hypsegOffset : this.ctmOffset;
    for (;;) {
      const buf = Buffer.alloc(65_536);
      const n = readSync(fd, buf, 0, buf.length, offset);
      if (n <= 0) break;
      chunks.push(buf.subarray(0, n));
      offset += n;
    }
    if (which === 'hypseg') this.hypsegOffset = offset;
    else this.ctmOffset = offset;
    return Buffer.concat(chunks).toString('utf8');
  }

  private onExit(child: ChildProcess, message: string): void {
    const tail = this.stderrTail
      .filter((l) => /ERROR|FATAL/.test(l))
      .slice(-3)
      .join(' | ');
    this.exited(child, new Error(tail ? `${message}: ${tail}` : message));
  }

  protected override closeFiles(): void {
    for (const fd of [this.ctlFd, this.fsgFd, this.mllrFd, this.hypsegFd, this.ctmFd]) {
      if (fd >= 0) closeSync(fd);
    }
    this.ctlFd = this.fsgFd = this.mllrFd = this.hypsegFd = this.ctmFd = -1;
  }
}
