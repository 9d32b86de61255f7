/**
 * Where the wall time of one transcription request goes: the pipeline's engines wrapped so that each
 * request records when its stages ran (ms from the request's start), and the idle core time that follows
 * from them. Used by bench/asr (`--mode pipeline --timeline`) and bench/pipeline.
 *
 * Stages: `input` from the start to the VAD's last block (ffprobe, ffmpeg's start and decode, the streamed
 * VAD: the chunks reach the recognizer only as the VAD closes them); one lane per recognition call (a
 * decoder process); `diarize` from the call to its result (the diarizer's own VAD pass on the main thread,
 * then the worker thread). Idle core time is ∫ max(0, cores − busy lanes) over the request: what a
 * scheduler with nothing else to run would leave unused.
 */
import os from 'node:os';
import type { Diarizer, Recognizer, Span, VoiceActivityDetector } from '../../src/service/speech/types';
import type { StreamingVoiceActivityDetector } from '../../src/service/speech/vad/silero';
import { liveChildrenCpuSeconds, threadCpuSeconds } from './proc-cpu';

export interface RequestStages {
  /** The VAD's first block arrived (ffprobe and ffmpeg's start are before it). */
  firstBlock: number | null;
  /** The VAD finished: every chunk is known. */
  inputEnd: number | null;
  /** One entry per recognition call (ms, and the seconds of audio it was given). */
  recognitions: { start: number; end: number; audio: number }[];
  diarize: Span | null;
  end: number | null;
  /** CPU ms the decoder processes (live children named pocketsphinx*) used during the request. */
  decoderCpu: number;
}

export class StageTimeline {
  private t0 = performance.now();
  private decoderCpu0 = 0;
  stages: RequestStages = StageTimeline.empty();
  /** Main-thread CPU seconds spent inside the VAD's calls (all requests). */
  vadCpuSeconds = 0;

  private static empty(): RequestStages {
    return { firstBlock: null, inputEnd: null, recognitions: [], diarize: null, end: null, decoderCpu: 0 };
  }

  /** Starts a new request's timeline. */
  begin(): void {
    this.stages = StageTimeline.empty();
    this.decoderCpu0 = liveChildrenCpuSeconds('pocketsphinx');
    this.t0 = performance.now();
  }

  /** Ends the current request's timeline and returns it. */
  finish(): RequestStages {
    this.stages.end = this.now();
    this.stages.decoderCpu = (liveChildrenCpuSeconds('pocketsphinx') - this.decoderCpu0) * 1000;
    return this.stages;
  }

  now(): number {
    return performance.now() - this.t0;
  }

  recognizer(inner: Recognizer): Recognizer {
    return Object.assign(Object.create(inner) as Recognizer, {
      recognize: async (pcm: Float32Array, options?: Parameters<Recognizer['recognize']>[1]) => {
        const stages = this.stages;
        const entry = { start: this.now(), end: 0, audio: pcm.length / 16_000 };
        try {
          return await inner.recognize(pcm, options);
        } finally {
          entry.end = this.now();
          stages.recognitions.push(entry);
        }
      },
    });
  }

  diarizer<D extends Diarizer>(inner: D): D {
    return Object.assign(Object.create(inner) as D, {
      diarize: async (...args: Parameters<Diarizer['diarize']>) => {
        const stages = this.stages;
        const span = { start: this.now(), end: 0 };
        try {
          return await inner.diarize(...args);
        } finally {
          span.end = this.now();
          stages.diarize = span;
        }
      },
    });
  }

  /** The streamed VAD, recording its first block and its end, and adding up its main-thread CPU. */
  vad(inner: StreamingVoiceActivityDetector): VoiceActivityDetector {
    const timed = <T>(call: () => Promise<T>): Promise<T> => {
      const t0 = threadCpuSeconds();
      return call().finally(() => (this.vadCpuSeconds += threadCpuSeconds() - t0));
    };
    return Object.assign(Object.create(inner) as StreamingVoiceActivityDetector, {
      stream: (options?: { offset?: number }) => {
        const stream = inner.stream(options);
        return Object.assign(Object.create(stream) as typeof stream, {
          push: (pcm: Float32Array) => {
            this.stages.firstBlock ??= this.now();
            return timed(() => stream.push(pcm));
          },
          finish: () =>
            timed(() => stream.finish()).finally(() => {
              this.stages.inputEnd = this.now();
            }),
        });
      },
    });
  }
}

/** The figures one request's stages give, in ms. */
export interface StageSummary {
  wall: number;
  firstBlock: number;
  inputEnd: number;
  /** From the input's end to the first recognition's start (the chunk waits for nothing else). */
  firstRecognition: number;
  /** The last recognition's end. */
  recognized: number;
  /** Recognition calls and the largest number running at once. */
  calls: number;
  parallel: number;
  /** Wall ms of the recognition calls added up, and the decoders' CPU ms: below it, the decoders waited for a core. */
  recognitionMs: number;
  decoderCpu: number;
  diarizeStart: number;
  diarizeEnd: number;
  /** After both recognition and diarization: speakers on words, text. */
  tail: number;
  /** Core-ms left unused (∫ max(0, cores − busy lanes)). */
  idleCoreMs: number;
}

export function summarize(stages: RequestStages, cores = os.availableParallelism()): StageSummary {
  const wall = stages.end ?? 0;
  const recognized = Math.max(0, ...stages.recognitions.map((r) => r.end));
  const firstRecognition = Math.min(wall, ...stages.recognitions.map((r) => r.start));
  // Lanes: the input (main thread), each recognition (a decoder process), the diarizer.
  const lanes: Span[] = [
    { start: 0, end: stages.inputEnd ?? 0 },
    ...stages.recognitions,
    ...(stages.diarize ? [stages.diarize] : []),
  ];
  const edges = [...new Set([0, wall, ...lanes.flatMap((l) => [l.start, l.end])])].sort((a, b) => a - b);
  let idle = 0;
  let parallel = 0;
  for (let i = 0; i + 1 < edges.length; i++) {
    const a = edges[i]!;
    const b = edges[i + 1]!;
    const busy = lanes.filter((l) => l.start <= a && l.end >= b).length;
    parallel = Math.max(parallel, stages.recognitions.filter((l) => l.start <= a && l.end >= b).length);
    idle += Math.max(0, cores - busy) * (b - a);
  }
  const diarizeEnd = stages.diarize?.end ?? recognized;
  return {
    wall,
    firstBlock: stages.firstBlock ?? 0,
    inputEnd: stages.inputEnd ?? 0,
    firstRecognition: Math.max(0, firstRecognition - (stages.inputEnd ?? 0)),
    recognized,
    calls: stages.recognitions.length,
    parallel,
    recognitionMs: stages.recognitions.reduce((a, r) => a + r.end - r.start, 0),
    decoderCpu: stages.decoderCpu,
    diarizeStart: stages.diarize?.start ?? 0,
    diarizeEnd,
    tail: wall - Math.max(recognized, diarizeEnd),
    idleCoreMs: idle,
  };
}

/** One line per request (`label`), and a mean over all of them when `rows` is the whole list. */
export function formatStages(rows: { label: string; summary: StageSummary; programMs?: number }[]): string[] {
  const head = ['file', 'program', 'wall', '1st block', 'input end', '→1st rec', 'recognized', 'calls', 'par', 'rec ms', 'dec CPU', 'diar start', 'diar end', 'tail', 'idle core'];
  const cell = (x: number) => x.toFixed(0);
  const line = (label: string, s: StageSummary, program?: number) => [
    label,
    program === undefined ? '-' : cell(program),
    cell(s.wall),
    cell(s.firstBlock),
    cell(s.inputEnd),
    cell(s.firstRecognition),
    cell(s.recognized),
    String(s.calls),
    String(s.parallel),
    cell(s.recognitionMs),
    cell(s.decoderCpu),
    cell(s.diarizeStart),
    cell(s.diarizeEnd),
    cell(s.tail),
    cell(s.idleCoreMs),
  ];
  const table = rows.map((r) => line(r.label, r.summary, r.programMs));
  if (rows.length > 1) {
    const mean = (f: (s: StageSummary) => number) => rows.reduce((a, r) => a + f(r.summary), 0) / rows.length;
    const programs = rows.filter((r) => r.programMs !== undefined);
    const m: StageSummary = {
      wall: mean((s) => s.wall),
      firstBlock: mean((s) => s.firstBlock),
      inputEnd: mean((s) => s.inputEnd),
      firstRecognition: mean((s) => s.firstRecognition),
      recognized: mean((s) => s.recognized),
      calls: +mean((s) => s.calls).toFixed(2),
      parallel: +mean((s) => s.parallel).toFixed(2),
      recognitionMs: mean((s) => s.recognitionMs),
      decoderCpu: mean((s) => s.decoderCpu),
      diarizeStart: mean((s) => s.diarizeStart),
      diarizeEnd: mean((s) => s.diarizeEnd),
      tail: mean((s) => s.tail),
      idleCoreMs: mean((s) => s.idleCoreMs),
    };
    const programMean = programs.length ? programs.reduce((a, r) => a + r.programMs!, 0) / programs.length : undefined;
    table.push(line('mean', m, programMean));
  }
  const all = [head, ...table];
  const widths = head.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return all.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}
