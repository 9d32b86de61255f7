import fs from 'node:fs';
import path from 'node:path';
import type { PocketSphinxModel } from './model';
import { accumulateMllrStats, solveMllr, type SpeakerChunk, type SphinxtrainTools } from './adaptation';

/**
 * A voice's MLLR transform grown batch by batch: each batch's Baum-Welch sums are kept (not its audio) and
 * the transform is solved from all of them. Returns the transform file, or null while the voice has less
 * than `minSeconds` of aligned speech.
 */
export interface BatchEstimator {
  /** Seconds of a voice's speech before its first transform (callers need not send fewer). */
  readonly minSeconds: number;
  estimate(voice: number, chunks: readonly SpeakerChunk[], current: string | null): Promise<string | null>;
  /** Stops a running estimate (its promise rejects), refuses new ones, and removes the working files. */
  close(): Promise<void>;
}

export function createBatchMllrEstimator(deps: {
  model: PocketSphinxModel;
  tools: SphinxtrainTools;
  /** The expanded training model's folder (prepareTrainingModel), shared with the project adaptation. */
  trainingModel: () => Promise<string>;
  /** A private folder, removed at close. */
  workDir: string;
  minSeconds: number;
}): BatchEstimator {
  const voices = new Map<number, { batches: string[]; seconds: number; solved: number }>();
  const stop = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const estimate = async (
    voice: number,
    chunks: readonly SpeakerChunk[],
    current: string | null,
  ): Promise<string | null> => {
    stop.signal.throwIfAborted();
    const hmm = await deps.trainingModel();
    stop.signal.throwIfAborted();
    const state = voices.get(voice) ?? { batches: [], seconds: 0, solved: 0 };
    voices.set(voice, state);
    const dir = path.join(deps.workDir, `v${voice}`);
    const acc = path.join(dir, `b${state.batches.length}`);
    fs.mkdirSync(acc, { recursive: true });
    const seconds = await accumulateMllrStats(
      deps.model,
      deps.tools,
      hmm,
      chunks,
      acc,
      dir,
      current,
      stop.signal,
    );
    if (seconds > 0) {
      state.batches.push(acc);
      state.seconds += seconds;
    }
    if (state.seconds < deps.minSeconds || state.batches.length === 0) return current;
    // A fresh name per solve: the decoder reloads the model only when a transform's name changes.
    const out = path.join(dir, `t${state.solved++}.mllr`);
    await solveMllr(deps.tools, hmm, state.batches, out, path.join(dir, 'mllr.log'), stop.signal);
    return out;
  };
  return {
    minSeconds: deps.minSeconds,
    estimate(voice, chunks, current) {
      const result = estimate(voice, chunks, current);
      running = result.catch(() => undefined);
      return result;
    },
    async close() {
      stop.abort();
      // The killed tool's callback writes its log before the promise settles: only then is the folder free.
      await running;
      fs.rmSync(deps.workDir, { recursive: true, force: true });
    },
  };
}
