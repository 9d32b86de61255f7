import fs from 'node:fs';
import path from 'node:path';
import { JobFailure, type JobRunner } from '../jobs/job-runner';
import { encodeWav, readFrames } from '../media/wav';
import { crossfadeRegion } from '../dsp/crossfade';
import type { MediaTools } from '../media/tools';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { Aligner } from '../speech/types';
import type { DubStore, TakeRecord } from '../storage/dub-store';
import type { DubFiles } from './dub-files';
import { writePatchFile } from './patch-file';
import { renderLine } from './render-line';
import { openWav } from './revoice-job';
import { DUB_TAKES_JOB } from './takes';
import { inParallel, RENDER_PARALLEL } from './parallel';

export interface TakesJobDeps {
  store: DubStore;
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
 * after a restart renders only the takes not ready.
 */
export function registerTakesJob(runner: JobRunner, deps: TakesJobDeps): void {
  const { store, files } = deps;
  runner.register(DUB_TAKES_JOB, async ({ job, signal, progress }) => {
    const takes = await store.takesOfJob(job.id);
    const dub = takes[0] ? await store.dubById(takes[0].dubId) : null;
    if (!dub) throw new JobFailure('The dub was deleted.');
    const todo = takes.filter((t) => t.status !== 'ready' && t.status !== 'failed');
    const source = openWav(files.revision(dub.sessionId, dub.id, (await store.revision(dub.id, 1))!.fileName));
    const background = dub.background ? openWav(files.background(dub.sessionId, dub.id)) : null;
    const dir = files.takesDir(dub.sessionId, dub.id);
    fs.mkdirSync(dir, { recursive: true });
    let done = 0;
    try {
      await inParallel(todo, RENDER_PARALLEL, async (take: TakeRecord) => {
        signal.throwIfAborted();
        await store.setTakeStatus(take.id, 'rendering');
        progress(done / todo.length, `rendering take ${take.number} of line ${take.lineId}`);
        try {
          const rendered = await renderLine({ voices: deps.voices, tools: deps.tools, aligner: deps.aligner(), source, background }, take.plan, signal);
          // The audition: the region as the revision it was asked on would sound with the take crossfaded in.
          const base = await store.revision(dub.id, take.baseRevision);
          if (!base) throw new JobFailure(`Revision ${take.baseRevision} no longer exists.`);
          const baseWav = openWav(files.revision(dub.sessionId, dub.id, base.fileName));
          let audition: Float32Array;
          try {
            const { start_frame: start, end_frame: end } = rendered.render.region;
            audition = crossfadeRegion(readFrames(baseWav.fd, baseWav.layout, start, end - start), rendered.patch, dub.channels, rendered.fadeIn, rendered.fadeOut);
          } finally {
            fs.closeSync(baseWav.fd);
          }
          writeAtomically(path.join(dir, `${take.id}.patch`), (tmp) =>
            writePatchFile(tmp, { fadeIn: rendered.fadeIn, fadeOut: rendered.fadeOut, channels: dub.channels, samples: rendered.patch }),
          );
          writeAtomically(path.join(dir, `${take.id}.wav`), (tmp) => fs.writeFileSync(tmp, encodeWav(audition, baseWav.layout)));
          await store.setTakeStatus(take.id, 'ready', { render: { ...rendered.render, revision: 0, revoice_id: null, take_id: take.id } });
        } catch (error) {
          if (signal.aborted) throw error;
          await store.setTakeStatus(take.id, 'failed', { error: (error as Error).message });
        }
        done++;
        progress(done / todo.length, `rendered ${done} of ${todo.length} takes`);
      });
    } finally {
      fs.closeSync(source.fd);
      if (background) fs.closeSync(background.fd);
    }
  });

  runner.on('settled', (job) => {
    if (job.kind !== DUB_TAKES_JOB || (job.status !== 'failed' && job.status !== 'cancelled')) return;
    // Takes a failed or cancelled job left unrendered are failed too, so no one waits on them.
    void store
      .takesOfJob(job.id)
      .then((takes) => Promise.all(takes.filter((t) => t.status === 'queued' || t.status === 'rendering').map((t) => store.setTakeStatus(t.id, 'failed', { error: job.error ?? 'cancelled' }))))
      .catch((error: unknown) => (deps.log ?? console.error)(`takes of job ${job.id}: status not recorded: ${(error as Error).message}`));
  });
}

function writeAtomically(target: string, write: (tmp: string) => void): void {
  const tmp = `${target}.tmp`;
  write(tmp);
  fs.renameSync(tmp, target);
}
