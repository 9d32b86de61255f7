import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AbortError, OneJobProcess } from '../../process-pool';
import { SynthesisError } from './voice';

/**
 * text2wave's recipe as functions of a running festival: the text file is read as text (never as Scheme),
 * split into utterances, each synthesized and its samples appended to one RIFF file whose header is
 * rewritten at the end with the total. `takeline_rate` (one per kind of voice, below) sets the speaking rate
 * on top of the voice's own, or restores the voice's own (nil). Output is byte-identical to
 * `text2wave -eval (voice…)` for the same text and rate (checked by a test).
 */
const DEFINITIONS = `
(define (takeline_words utt)
  (set! takeline_utts (+ takeline_utts 1))
  (let ((offset (/ takeline_samples (get_param 'sample_rate (wave.info (utt.wave utt)) 16000))))
    (mapcar
     (lambda (w)
       (format takeline_wfp "%d:%s\t%f\t%f\t%s\n" takeline_utts
               (item.feat w "R:Token.parent.id")
               (+ offset (item.feat w "R:SylStructure.daughter1.daughter1.R:Segment.p.end"))
               (+ offset (item.feat w "R:SylStructure.daughtern.daughtern.R:Segment.end"))
               (item.feat w "R:Token.parent.name")))
     (utt.relation.items utt 'Word))))
(define (takeline_save utt)
  (if (eq? takeline_samples 0)
      (wave.save.header takeline_fp (utt.wave utt) 'riff nil (list (list "numsamples" 0))))
  (takeline_words utt)
  (set! takeline_samples (+ takeline_samples (get_param 'num_samples (wave.info (utt.wave utt)) 0)))
  (wave.save.data.fp (utt.wave utt) takeline_fp 'riff nil)
  (set! takeline_utt utt))
(define (takeline_speak id infile outfile wordsfile rate)
  (takeline_rate rate)
  (set! takeline_fp (fopen outfile "wb"))
  (set! takeline_wfp (fopen wordsfile "w"))
  (set! takeline_utts 0)
  (set! takeline_samples 0)
  (set! takeline_utt nil)
  (set! tts_hooks (list utt.synth takeline_save))
  (tts_file infile nil)
  (fseek takeline_fp 0 0)
  (wave.save.header takeline_fp (utt.wave takeline_utt) 'riff nil (list (list "numsamples" takeline_samples)))
  (fclose takeline_fp)
  (fclose takeline_wfp)
  (format stderr "takeline-done %s\\n" id))
`;

/**
 * How a kind of festival voice changes its speaking rate, and what of the voice's own setting is kept (read
 * once the voice is loaded) to scale from. HTS: the engine's `-r` (durations scaled in the model, pitch
 * unchanged). Diphone (and other unit voices): festival's `Duration_Stretch`, which the duration model's
 * predictions are multiplied by (pitch unchanged; the voice may set its own, e.g. kal's 1.1).
 */
export const FESTIVAL_RATE_CONTROLS = {
  hts: {
    keep: '(set! takeline_params hts_engine_params)',
    define: `(define (takeline_rate rate)
  (set! hts_engine_params (if rate (append takeline_params (list (list "-r" rate))) takeline_params)))`,
  },
  diphone: {
    keep: "(set! takeline_params (or (Parameter.get 'Duration_Stretch) 1))",
    define: `(define (takeline_rate rate)
  (Parameter.set 'Duration_Stretch (if rate (/ takeline_params rate) takeline_params)))`,
  },
} as const;

export type FestivalVoiceKind = keyof typeof FESTIVAL_RATE_CONTROLS;

/** A Scheme string literal of a path this module made (a temp folder's), quotes and backslashes escaped. */
const schemeString = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;

/** The festival process ended while a text was being spoken (a crash, or killed from outside). */
export class FestivalExited extends Error {}

export interface FestivalProcessOptions {
  /** The festival program. */
  program: string;
  /** The Scheme function that selects the voice, e.g. `voice_cmu_us_slt_arctic_hts`. */
  voiceFunction: string;
  /** How the voice's speaking rate is set; default `hts`. */
  kind?: FestivalVoiceKind;
  env: NodeJS.ProcessEnv;
  /** A text not spoken within this long fails and its process is killed. */
  timeoutMs?: number;
  /** Where the process's private folder (its texts and WAVs) goes; default the OS temp folder. */
  tempDir?: string;
}

/** What festival wrote for a text: the WAV, and a line per word (`<utterance>:<token id>\t<start>\t<end>\t<token>`). */
export interface FestivalOutput {
  wav: Buffer;
  words: string;
}

interface ActiveRequest {
  id: string;
  output: string;
  wordsFile: string;
  spoken: boolean;
  resolve: (output: FestivalOutput) => void;
  reject: (error: Error) => void;
}

/**
 * One festival kept running with its voice loaded (`festival --pipe`: Scheme read from stdin, nothing
 * printed back), so a text costs its synthesis only, not festival's start-up, lexicon and voice load each
 * time. One text at a time: the text goes in a file of a private temp folder, the call names it and the
 * output file, and festival says on stderr (unbuffered) when the WAV is written (`takeline-done <id>`) and
 * when the call is over (`takeline-end <id>`, also after a Scheme error, which festival reports and survives).
 * An abort or timeout kills the process; it starts again for the next text. The process ends with its stdin,
 * so a service killed outright leaves no festival behind.
 */
export class FestivalProcess extends OneJobProcess<ActiveRequest> {
  protected readonly programName = 'festival';
  private counter = 0;
  private partial = '';
  private errors: string[] = [];

  constructor(private readonly options: FestivalProcessOptions) {
    super();
  }

  /** The process's id while it runs (tests kill it to check a crash is survived). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Speaks `text` at `rate` (1: the voice's own); resolves with the WAV festival wrote and its words' times. */
  async speak(text: string, rate: number, signal?: AbortSignal): Promise<FestivalOutput> {
    if (this.active) throw new Error('FestivalProcess is busy; speak one text at a time');
    if (signal?.aborted) throw new AbortError();
    if (!this.child) this.start();
    const id = `t${++this.counter}`;
    const input = path.join(this.dir, `${id}.txt`);
    const output = path.join(this.dir, `${id}.wav`);
    const wordsFile = path.join(this.dir, `${id}.words`);
    // A line break keeps the last word from being cut short.
    fs.writeFileSync(input, `${text}\n`);
    const done = new Promise<FestivalOutput>((resolve, reject) => {
      this.active = { id, output, wordsFile, spoken: false, resolve, reject };
    });
    const timer = setTimeout(() => this.fail(new Error(`festival took longer than ${this.timeoutMs} ms`)), this.timeoutMs);
    const onAbort = () => this.fail(signal!.reason instanceof Error ? signal!.reason : new AbortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.errors = [];
      const speed = rate === 1 ? 'nil' : rate.toFixed(4);
      this.child!.stdin!.write(`(takeline_speak "${id}" ${schemeString(input)} ${schemeString(output)} ${schemeString(wordsFile)} ${speed})\n(format stderr "takeline-end ${id}\\n")\n`);
      return await done;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fs.rmSync(input, { force: true });
      fs.rmSync(output, { force: true });
      fs.rmSync(wordsFile, { force: true });
    }
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 120_000;
  }

  protected start(): void {
    this.dir = fs.mkdtempSync(path.join(this.options.tempDir ?? os.tmpdir(), 'takeline-festival-'));
    // The voice in its environment tells the kept processes apart (`ps e`; several voices each keep their own).
    const env = { ...this.options.env, TAKELINE_FESTIVAL_VOICE: this.options.voiceFunction };
    const child = spawn(this.options.program, ['--pipe'], { stdio: ['pipe', 'ignore', 'pipe'], env });
    this.child = child;
    this.partial = '';
    this.errors = [];
    child.stdin!.on('error', () => undefined);
    child.stderr!.setEncoding('utf8');
    // A killed process's last words must not be read as the next one's.
    child.stderr!.on('data', (chunk: string) => child === this.child && this.onStderr(chunk));
    child.on('error', (error) => this.onExit(child, `could not run ${this.options.program}: ${error.message}`));
    child.on('exit', (code, sig) => this.onExit(child, `festival exited (${sig ?? code})`));
    // The voice loads now, while the first text is still being written.
    const rate = FESTIVAL_RATE_CONTROLS[this.options.kind ?? 'hts'];
    child.stdin!.write(`${DEFINITIONS}\n${rate.define}\n(${this.options.voiceFunction})\n${rate.keep}\n`);
  }

  private onStderr(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const request = this.active;
      if (request && line.endsWith(`takeline-done ${request.id}`)) {
        request.spoken = true;
      } else if (request && line.endsWith(`takeline-end ${request.id}`)) {
        this.active = null;
        if (!request.spoken) {
          request.reject(new SynthesisError(`festival could not speak this text: ${this.errors.slice(-2).join(' | ') || 'no output'}`));
          continue;
        }
        try {
          request.resolve({ wav: fs.readFileSync(request.output), words: fs.readFileSync(request.wordsFile, 'utf8') });
        } catch (error) {
          request.reject(error as Error);
        }
      } else if (line.trim() && !line.startsWith('closing a file left open')) {
        // (festival closing the call's files after a failed utterance says nothing about why it failed)
        // SIOD ERROR lines and other complaints: the reason a call gave no WAV.
        this.errors.push(line.trim());
        if (this.errors.length > 20) this.errors.shift();
      }
    }
  }

  private onExit(child: ChildProcess, message: string): void {
    const tail = this.errors.slice(-2).join(' | ');
    this.exited(child, new FestivalExited(tail ? `${message}: ${tail}` : message));
  }
}
