import fs from 'node:fs';
import { JobFailure, type JobRecord, type JobRunner } from '../jobs/job-runner';
import { crashPoints } from '../jobs/crash-points';
import type { TransactionScope } from '../storage/transaction-scope';
import type { LocalCopy } from '../storage/blobs/local-copies';
import { openWav, readFrames, readWavLayout, writeFrames, type WavSource } from '../media/wav';
import { crossfadeRegion } from '../dsp/crossfade';
import type { MediaTools } from '../media/tools';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { Aligner } from '../speech/types';
import type { DubRecord, DubStore, RevoiceRecord } from '../storage/dub-store';
import { dubKeys, revisionStem, type DubFiles } from './dub-files';
import { renderLine } from './render-line';
import { DEFAULT_RENDER_PARALLEL, inParallel } from './parallel';

export const DUB_REVOICE_JOB = 'dub-revoice';

export interface RevoiceDeps {
  store: DubStore;
  /** Lines (takes) rendered at once (ServiceConfig.dubRenderParallel; default {@link DEFAULT_RENDER_PARALLEL}). */
  renderParallel?: number;
  files: DubFiles;
  tools: MediaTools;
  voices: VoiceRegistry;
  /** Forced alignment for the new words, or null when PocketSphinx is not installed. */
  aligner(): Aligner | null;
  log?: (line: string) => void;
}


/** An open WAV file of a local copy of a stored object; `close` closes it and lets the copy go. */
export interface OpenedWav extends WavSource {
  close(): Promise<void>;
}

export async function openStoredWav(files: DubFiles, key: string): Promise<OpenedWav> {
  const copy: LocalCopy = await files.local(key);
  try {
    const wav = openWav(copy.path);
    return {
      ...wav,
      close: async () => {
        fs.closeSync(wav.fd);
        await copy.release();
      },
    };
  } catch (error) {
    await copy.release();
    throw error;
  }
}

/**
 * The revoice job. Each planned line is rendered and checkpointed on its own (its patch stored whole in the
 * blob store, then its row committed), so a revoice stopped or killed resumes at the first line without a
 * row, on whichever worker takes it up. When every line is done, the revision is built in a scratch file (the
 * base revision copied, only the lines' regions rewritten), stored whole, and only then recorded: a revision
 * is never listed, played or downloaded before it is whole.
 */
export function registerRevoiceJob(runner: JobRunner, deps: RevoiceDeps): void {
  const { store } = deps;
  // The revoice follows its job's end in the transaction that records it; a complete one (its revision recorded
  // before the job's end was) stays complete.
  const settle = async (job: JobRecord, scope: TransactionScope) => {
    const id = String(job.payload.revoice_id);
    const revoices = store.within(scope);
    if ((await revoices.revoice(id))?.status === 'complete') return;
    if (job.status === 'failed' || job.status === 'cancelled') await revoices.setRevoiceStatus(id, 'failed', { error: job.error ?? 'cancelled' });
    else if (job.status === 'queued') await revoices.setRevoiceStatus(id, 'queued');
  };
  runner.register(DUB_REVOICE_JOB, { keptWork: (job) => store.checkpointCount(String(job.payload.revoice_id)), settle }, async ({ job, signal, progress }) => {
    const revoice = await store.revoice(String(job.payload.revoice_id));
    const dub = revoice ? await store.dubById(revoice.dubId) : null;
    if (!revoice || !dub) throw new JobFailure('The dub was deleted.');
    // Killed after the revision was recorded but before the job was: nothing is left to do.
    if (revoice.status === 'complete') return;
    await store.setRevoiceStatus(revoice.id, 'running');
    // Deleting the dub cancels this job (JobQueue.cancel), which aborts `signal` on whichever process runs it.
    await renderPlan(deps, dub, revoice, job.attempts, signal, progress);
    signal.throwIfAborted();
    progress(0.95, 'writing the revision');
    await assemble(deps, dub, revoice);
    progress(1, 'complete');
  });
}

async function renderPlan(
  deps: RevoiceDeps,
  dub: DubRecord,
  revoice: RevoiceRecord,
  attempt: number,
  signal: AbortSignal,
  progress: (fraction: number, stage?: string) => void,
): Promise<void> {
  const { store, files } = deps;
  const done = new Set((await store.checkpoints(revoice.id)).map((c) => c.lineId));
  const source = await openStoredWav(files, dubKeys.revision(dub.sessionId, dub.id, (await store.revision(dub.id, 1))!.fileName));
  let background: OpenedWav | null = null;
  try {
    if (dub.background) background = await openStoredWav(files, dubKeys.background(dub.sessionId, dub.id));
    const total = revoice.plan.length;
    let finished = done.size;
    // Lines are rendered `renderParallel` at a time: each reads only the dub's files and writes its own patch,
    // and the revision is assembled in region order whatever order they finish in, so the output is the same.
    await inParallel(
      revoice.plan.filter((line) => !done.has(line.lineId)),
      deps.renderParallel ?? DEFAULT_RENDER_PARALLEL,
      async (line) => {
        signal.throwIfAborted();
        progress((finished / total) * 0.95, `voicing line ${line.lineId} (${finished + 1} of ${total})`);
        const rendered = await renderLine({ voices: deps.voices, tools: deps.tools, aligner: deps.aligner(), source, background }, line, signal);
        signal.throwIfAborted();
        const patchFile = `line-${line.lineId}.patch`;
        await files.putPatch(dubKeys.workFile(dub.sessionId, dub.id, revoice.id, patchFile), { fadeIn: rendered.fadeIn, fadeOut: rendered.fadeOut, channels: dub.channels, samples: rendered.patch });
        await store.insertCheckpoint(revoice.id, { lineId: line.lineId, render: { ...rendered.render, revision: 0, revoice_id: revoice.id }, patchFile, attempt });
        crashPoints.hit('revoice.after-line');
        finished++;
        progress((finished / total) * 0.95, `voiced line ${line.lineId} (${finished} of ${total})`);
      },
    );
  } finally {
    await source.close();
    await background?.close();
  }
}

/** Builds the new revision from the base and the rendered lines, then records it in one transaction. */
async function assemble(deps: RevoiceDeps, dub: DubRecord, revoice: RevoiceRecord): Promise<number> {
  const { store, files } = deps;
  const base = await store.revision(dub.id, revoice.baseRevision);
  if (!base) throw new JobFailure(`Revision ${revoice.baseRevision} no longer exists.`);
  const checkpoints = (await store.checkpoints(revoice.id)).sort((a, b) => a.render.region.start_frame - b.render.region.start_frame);
  const number = await store.nextRevisionNumber(dub.id);
  const fileName = `${revisionStem(number)}.wav`;
  const tmp = files.scratchFile('.wav');
  try {
    // Every byte outside the lines' regions comes from this copy of the base revision.
    if (!(await files.copyOut(dubKeys.revision(dub.sessionId, dub.id, base.fileName), tmp))) throw new JobFailure(`The file of revision ${base.number} is missing.`);
    const fd = fs.openSync(tmp, 'r+');
    try {
      const layout = readWavLayout(fd);
      for (const checkpoint of checkpoints) {
        const patch = await files.readPatch(dubKeys.workFile(dub.sessionId, dub.id, revoice.id, checkpoint.patchFile));
        const { start_frame: start, end_frame: end } = checkpoint.render.region;
        const current = readFrames(fd, layout, start, end - start);
        writeFrames(fd, layout, start, crossfadeRegion(current, patch.samples, layout.channels, patch.fadeIn, patch.fadeOut));
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // Stored whole before the row naming it commits; a crash in between leaves a file the start-up sweep removes.
    await files.store(dubKeys.revision(dub.sessionId, dub.id, fileName), tmp);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const renders = { ...base.renders };
  for (const checkpoint of checkpoints) renders[checkpoint.lineId] = { ...checkpoint.render, revision: number };
  await store.transaction(async (tx) => {
    await tx.insertRevision(dub.id, {
      number,
      base: base.number,
      source: 'revoice',
      revoiceId: revoice.id,
      fileName,
      renders,
      linesRevoiced: checkpoints.map((c) => c.lineId),
    });
    await tx.updateDub(dub.id, { currentRevision: number });
    await tx.setRevoiceStatus(revoice.id, 'complete', { revision: number });
  });
  crashPoints.hit('revoice.after-revision');
  await files.removeWork(dub.sessionId, dub.id, revoice.id);
  return number;
}
