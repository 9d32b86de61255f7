import { JobFailure, type JobRecord, type JobRunner } from '../jobs/job-runner';
import { crashPoints } from '../jobs/crash-points';
import type { TransactionScope } from '../storage/transaction-scope';
import { encodeWav, readFrames } from '../media/wav';
import { crossfadeRegion } from '../dsp/crossfade';
import type { MediaTools } from '../media/tools';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { Aligner } from '../speech/types';
import type { DubStore, TakeRecord } from '../storage/dub-store';
import { dubKeys, type DubFiles } from './dub-files';
import { renderLine } from './render-line';
import { openStoredWav, type OpenedWav } from './revoice-job';
import { DUB_TAKES_JOB } from './takes';
import { DEFAULT_RENDER_PARALLEL, inParallel } from './parallel';

export interface TakesJobDeps {
  store: DubStore;
  /** Lines (takes) rendered at once (ServiceConfig.dubRenderParallel; default {@link DEFAULT_RENDER_PARALLEL}). */
  renderParallel?: number;
  files: DubFiles;
  tools: MediaTools;
  voices: VoiceRegistry;
  aligner(): Aligner | null;
  log?: (line: string) => void;
}

/**
 * The takes job: renders each take of its line as a revoice renders a line (same fit, loudness and
 * crossfades), two at a time, and keeps per take its patch (to put it in) and its region as the dub would
 * sound with it (to audition it). A take that fails is marked failed; the others go on. A job run again
 * after a restart renders only the takes not ready. A take removed while the job runs (takes.ts unusableTakes)
 * is skipped, or its files removed if it was being rendered.
 */
export function registerTakesJob(runner: JobRunner, deps: TakesJobDeps): void {
  const { store, files } = deps;
  // Takes a failed or cancelled job left unrendered are failed too, in the transaction that records its end, so no one waits on them.
  const settle = async (job: JobRecord, scope: TransactionScope) => {
    if (job.status !== 'failed' && job.status !== 'cancelled') return;
    const takes = store.within(scope);
    for (const take of await takes.takesOfJob(job.id)) {
      if (take.status === 'queued' || take.status === 'rendering') await takes.setTakeStatus(take.id, 'failed', { error: job.error ?? 'cancelled' });
    }
  };
  runner.register(DUB_TAKES_JOB, { settle }, async ({ job, signal, progress }) => {
    const takes = await store.takesOfJob(job.id);
    const dub = takes[0] ? await store.dubById(takes[0].dubId) : null;
    if (!dub) throw new JobFailure('The dub was deleted.');
    const todo = takes.filter((t) => t.status !== 'ready' && t.status !== 'failed');
    const source = await openStoredWav(files, dubKeys.revision(dub.sessionId, dub.id, (await store.revision(dub.id, 1))!.fileName));
    let background: OpenedWav | null = null;
    let done = 0;
    try {
      if (dub.background) background = await openStoredWav(files, dubKeys.background(dub.sessionId, dub.id));
      await inParallel(todo, deps.renderParallel ?? DEFAULT_RENDER_PARALLEL, async (take: TakeRecord) => {
        signal.throwIfAborted();
        // Gone already: newer takes replaced it, or its line changed (takes.ts unusableTakes).
        if (!(await store.setTakeStatus(take.id, 'rendering'))) {
          done++;
          return;
        }
        progress(done / todo.length, `rendering take ${take.number} of line ${take.lineId}`);
        try {
          const rendered = await renderLine({ voices: deps.voices, tools: deps.tools, aligner: deps.aligner(), source, background }, take.plan, signal);
          // The audition: the region as the revision it was asked on would sound with the take crossfaded in.
          const base = await store.revision(dub.id, take.baseRevision);
          if (!base) throw new JobFailure(`Revision ${take.baseRevision} no longer exists.`);
          const baseWav = await openStoredWav(files, dubKeys.revision(dub.sessionId, dub.id, base.fileName));
          let audition: Float32Array;
          try {
            const { start_frame: start, end_frame: end } = rendered.render.region;
            audition = crossfadeRegion(readFrames(baseWav.fd, baseWav.layout, start, end - start), rendered.patch, dub.channels, rendered.fadeIn, rendered.fadeOut);
          } finally {
            await baseWav.close();
          }
          // Both stored whole before the take's row says it is ready.
          await files.putPatch(dubKeys.take(dub.sessionId, dub.id, `${take.id}.patch`), { fadeIn: rendered.fadeIn, fadeOut: rendered.fadeOut, channels: dub.channels, samples: rendered.patch });
          await files.blobs.put(dubKeys.take(dub.sessionId, dub.id, `${take.id}.wav`), encodeWav(audition, baseWav.layout));
          const kept = await store.setTakeStatus(take.id, 'ready', { render: { ...rendered.render, revision: 0, revoice_id: null, take_id: take.id } });
          // Removed while it rendered: its files went before these were stored, so they go now.
          if (!kept) await files.removeTake(dub.sessionId, dub.id, take.id);
        } catch (error) {
          if (signal.aborted) throw error;
          await store.setTakeStatus(take.id, 'failed', { error: (error as Error).message });
        }
        crashPoints.hit('takes.after-take');
        done++;
        progress(done / todo.length, `rendered ${done} of ${todo.length} takes`);
      });
    } finally {
      await source.close();
      await background?.close();
    }
  });
}
