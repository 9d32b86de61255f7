import fs from 'node:fs';
import crypto from 'node:crypto';
import { z } from 'zod';
import type { DubLine, DubRevision, DubTake, TakesRequest, LineGuideName, LineRender } from '../../shared/schemas';
import { readFrames, readWavLayout, writeFrames } from '../media/wav';
import { crossfadeRegion } from '../dsp/crossfade';
import { signResource } from '../auth/signed-url';
import type { JobQueue } from '../jobs/job-runner';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { DubRecord, DubStore, LineRecord, PlannedLine, TakeRecord } from '../storage/dub-store';
import { ConflictError, InvalidInputError, issue, NotFoundError } from '../errors';
import { dubKeys, revisionStem, type DubFiles } from './dub-files';

export const DUB_TAKES_JOB = 'dub-takes';
/** Speeds tried after the line's own when none are asked for: within the fit limits, nearest the voice's pace first. */
export const DEFAULT_TAKE_SPEEDS = [0.9, 1.1, 0.95, 1.05] as const;

/** The resource a take's signed audio address stands for. */
export function takeResource(dubId: string, takeId: string): string {
  return `dub-take:${dubId}:${takeId}`;
}

/**
 * The voice and speed of each of `count` takes: every speed with every voice (speeds outer, so the first
 * takes try each voice at the line's own speed), distinct pairs only, the first `count`. None of the
 * installed engines varies a reading by itself (festival HTS, flite, SVOX Pico and espeak-ng read a text
 * the same way every time), so two takes at the same voice and speed would be the same take.
 */
export function takeVariants(count: number, voices: readonly string[], speeds: ReadonlyArray<number | null>): Array<{ voice: string; speed: number | null }> {
  const seen = new Set<string>();
  const out: Array<{ voice: string; speed: number | null }> = [];
  for (const speed of speeds) {
    for (const voice of voices) {
      const key = `${voice}\u0000${speed}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ voice, speed });
    }
  }
  return out.slice(0, count);
}

/** What a line's rendering follows: its own guide, else the dub's, else nothing (null: fitted to the slot). */
export function effectiveGuide(dub: Pick<DubRecord, 'guide'>, line: Pick<LineRecord, 'guide'>): LineGuideName | null {
  return line.guide ?? dub.guide ?? null;
}

/**
 * A line as a rendering will voice it, at a voice and speed, with the room its neighbours leave; with a guide,
 * also the original text the reading follows.
 */
export function plannedLine(lines: readonly LineRecord[], index: number, voice: string, speed: number | null, duration: number, guide: LineGuideName | null = null): PlannedLine {
  const line = lines[index]!;
  return {
    ...(guide ? { guide, originalText: line.originalText } : {}),
    lineId: line.id,
    speaker: line.speaker,
    text: line.text,
    voice,
    start: line.start,
    end: line.end,
    originalStart: line.originalStart,
    originalEnd: line.originalEnd,
    nextStart: lines[index + 1]?.start ?? duration,
    previousEnd: lines[index - 1]?.end ?? 0,
    speed,
  };
}

/** Whether the line (and the room around it) is still what the take was rendered for. */
export function takeFits(take: Pick<TakeRecord, 'plan'>, current: PlannedLine): boolean {
  const p = take.plan;
  return (
    p.text === current.text &&
    p.start === current.start &&
    p.end === current.end &&
    p.originalStart === current.originalStart &&
    p.originalEnd === current.originalEnd &&
    p.nextStart === current.nextStart &&
    p.previousEnd === current.previousEnd
  );
}

/**
 * The takes that go, each line keeping only takes that can still be chosen:
 * - a line's takes are replaced by its newer ones: asking for takes again removes the earlier requests' takes;
 * - takes that no longer fit the line (its text or timing, or its neighbours' timing, changed since they were
 *   rendered, so they could not be put in) are removed, and so are the takes of a line that is gone (merged);
 * - a take a revision has put in is never removed (the store keeps it as long as the dub): the revision's
 *   history names it and its audition stays playable.
 * A change of the line's voice or speed alone leaves its takes: each take carries its own voice and speed.
 */
export function unusableTakes(takes: readonly TakeRecord[], lines: readonly LineRecord[], duration: number): TakeRecord[] {
  const latestJob = new Map<number, { number: number; jobId: string }>();
  // Recorded takes stand beside the synthesized: neither replaces the other, and a recording stays while it fits.
  for (const take of takes) {
    if (take.source === 'recorded') continue;
    const latest = latestJob.get(take.lineId);
    if (!latest || take.number > latest.number) latestJob.set(take.lineId, { number: take.number, jobId: take.jobId });
  }
  const index = new Map(lines.map((l, i) => [l.id, i]));
  return takes.filter((take) => {
    const at = index.get(take.lineId);
    if (at === undefined) return true;
    if (take.source !== 'recorded' && latestJob.get(take.lineId)!.jobId !== take.jobId) return true;
    return !takeFits(take, plannedLine(lines, at, take.voice, take.speed, duration));
  });
}

export interface TakesDeps {
  store: DubStore;
  files: DubFiles;
  jobs: JobQueue;
  voices: VoiceRegistry;
  audioSecret: Buffer;
  /** The voice a line reads in (its own, its speaker's, the dub's, the default). */
  effectiveVoice(dub: DubRecord, line: LineRecord): string | null;
  /** A line as the API shows it now. */
  lineJson(dubId: string, lineId: number): Promise<DubLine>;
  revisionJson(dub: DubRecord, number: number, baseUrl: string): Promise<DubRevision>;
}

/**
 * Takes of a line: several renderings (voices, speeds) made by a job, auditioned from signed addresses,
 * one chosen into a new revision. Rendering is takes-job.ts.
 */
export class DubTakes {
  constructor(private readonly deps: TakesDeps) {}

  /** The line's planned rendering now, at a voice and speed, following the guide a revoice of it would. */
  private async planNow(store: DubStore, dub: DubRecord, lineId: number, voice: string, speed: number | null): Promise<PlannedLine | null> {
    const lines = await store.lines(dub.id);
    const index = lines.findIndex((l) => l.id === lineId);
    return index < 0 ? null : plannedLine(lines, index, voice, speed, dub.frames / dub.sampleRate, effectiveGuide(dub, lines[index]!));
  }

  /** Records the takes asked for and queues the job that renders them. Everything is checked first. */
  async request(dub: DubRecord, line: LineRecord, body: TakesRequest): Promise<{ jobId: string; takes: TakeRecord[] }> {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
    const effective = this.deps.effectiveVoice(dub, line);
    const problems = (body.voices ?? []).flatMap((ref, i) => {
      const found = this.deps.voices.lookupRef(ref);
      return found.ok ? [] : [issue(['voices', i], found.message, 'voice_not_found', ref, { available: this.deps.voices.refs() })];
    });
    if (problems.length) throw new InvalidInputError(problems);
    const voices = body.voices ?? (effective ? [effective] : []);
    if (voices.length === 0) throw new ConflictError('No voice engine is installed, so no take can be voiced. Install festival and festvox-us-slt-hts (or see GET /v1/audio/models).');
    const speeds = body.speeds ?? [line.speed, ...DEFAULT_TAKE_SPEEDS.filter((s) => s !== line.speed)];
    const variants = takeVariants(body.count, voices, speeds);
    if (variants.length < body.count) {
      throw new InvalidInputError([
        issue(
          ['count'],
          `${body.count} takes need ${body.count} different voice and speed pairs; the voices and speeds given make ${variants.length} (the engines read a text the same way every time)`,
          'too_few_variants',
          body.count,
          { variants: variants.length },
        ),
      ]);
    }
    const { jobId, takes, replaced } = await this.deps.store.transaction(async (store, jobStore) => {
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const current = (await store.dubById(dub.id))!;
      const planned = [];
      for (const v of variants) {
        const plan = await this.planNow(store, current, line.id, v.voice, v.speed);
        if (!plan) throw new NotFoundError('Line not found.');
        planned.push({ id: crypto.randomUUID(), voice: v.voice, speed: v.speed, plan, baseRevision: current.currentRevision });
      }
      // The takes and their job commit together.
      const jobId = await this.deps.jobs.enqueue(DUB_TAKES_JOB, dub.sessionId, { dub_id: dub.id, line_id: line.id }, jobStore);
      const takes = await store.insertTakes(
        dub.id,
        line.id,
        planned.map((p) => ({ ...p, jobId })),
      );
      // The new takes (numbered after the earlier ones) replace them.
      return { jobId, takes, replaced: await this.pruneRows(store, current) };
    });
    await this.removeFiles(dub, replaced);
    return { jobId, takes };
  }

  /**
   * Removes, in the caller's transaction (which holds the dub), the rows of the takes unusableTakes says go;
   * returns them, for removeFiles once the transaction has committed.
   */
  async pruneRows(store: DubStore, dub: DubRecord): Promise<TakeRecord[]> {
    const takes = await store.dubTakes(dub.id);
    if (takes.length === 0) return [];
    const gone = new Set(await store.deleteTakes(dub.id, unusableTakes(takes, await store.lines(dub.id), dub.frames / dub.sampleRate).map((t) => t.id)));
    return takes.filter((t) => gone.has(t.id));
  }

  /** The files of takes whose rows are gone (after a crash in between, the start-up sweep removes them). */
  async removeFiles(dub: DubRecord, takes: readonly TakeRecord[]): Promise<void> {
    for (const take of takes) await this.deps.files.removeTake(dub.sessionId, dub.id, take.id);
  }

  /** Resolves when the job settles, or after `seconds`. */
  async waitFor(jobId: string, seconds: number): Promise<void> {
    if (seconds <= 0) return;
    await this.deps.jobs.settled(jobId, seconds * 1000);
  }

  audioAddress(dub: DubRecord, takeId: string, baseUrl: string): DubRevision['audio'] {
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const signature = signResource(this.deps.audioSecret, takeResource(dub.id, takeId), expires);
    const url = `${baseUrl}/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.id}/takes/${takeId}/file?expires=${expires}&signature=${signature}`;
    return { url, download_url: `${url}&download=1`, expires_in: 3600 };
  }

  /** Takes as the API shows them, against the line and revision as they are now. */
  async json(dub: DubRecord, takes: TakeRecord[], baseUrl: string): Promise<DubTake[]> {
    const current = (await this.deps.store.dubById(dub.id)) ?? dub;
    const revision = await this.deps.store.revision(dub.id, current.currentRevision);
    const lines = await this.deps.store.lines(dub.id);
    return takes.map((take) => {
      const index = lines.findIndex((l) => l.id === take.lineId);
      const now = index < 0 ? null : plannedLine(lines, index, take.voice, take.speed, current.frames / current.sampleRate);
      const render = take.render ? (({ revision: _r, revoice_id: _v, ...rest }) => rest)(take.render) : null;
      return {
        id: take.id,
        line_id: take.lineId,
        number: take.number,
        voice: take.voice,
        speed: take.speed,
        source: take.source,
        status: take.status,
        error: take.error,
        text: take.plan.text,
        stale: now === null || !takeFits(take, now),
        chosen: revision?.renders[take.lineId]?.take_id === take.id,
        render,
        audio: take.status === 'ready' ? this.audioAddress(dub, take.id, baseUrl) : null,
        created_at: take.createdAt,
        finished_at: take.finishedAt,
      };
    });
  }

  /** A take removed (by newer takes or a change of its line) while it was being chosen. */
  private replaced(take: TakeRecord): ConflictError {
    return new ConflictError(`Take ${take.number} was removed meanwhile (newer takes replaced it, or its line changed). Choose one of the line's takes now.`);
  }

  async requireTake(dub: DubRecord, raw: string): Promise<TakeRecord> {
    const take = z.uuid().safeParse(raw).success ? await this.deps.store.take(dub.id, raw) : null;
    if (!take) throw new NotFoundError('Take not found.');
    return take;
  }

  /**
   * Puts a take in: a new revision, the current one copied with only the take's region rewritten (crossfaded
   * as a revoice does), recording the take. The line takes the take's voice and speed (so it reads as voiced)
   * and goes back to review (`todo`): the change is an undoable correction when they differ.
   */
  async choose(dub: DubRecord, line: LineRecord, takeId: string, author: string, baseUrl: string): Promise<{ line: DubLine; revision: DubRevision }> {
    const { store, files } = this.deps;
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
    const found = z.uuid().safeParse(takeId).success ? await store.take(dub.id, takeId) : null;
    if (!found || found.lineId !== line.id) {
      throw new InvalidInputError([issue(['take_id'], `Line ${line.id} has no take ${takeId}`, 'take_not_found', takeId)]);
    }
    if (found.status !== 'ready') throw new ConflictError(`Take ${found.number} is ${found.status}; only a rendered take can be chosen.`);
    const base = (await store.dubById(dub.id))!;
    const baseRevision = (await store.revision(dub.id, base.currentRevision))!;
    const render = found.render!;
    // The new revision is built aside (a copy of the current one with the take's region rewritten), then named
    // and recorded in one transaction that checks nothing moved meanwhile.
    const tmp = files.scratchFile('.wav');
    try {
      if (!(await files.copyOut(dubKeys.revision(dub.sessionId, dub.id, baseRevision.fileName), tmp))) throw new Error(`The file of revision ${baseRevision.number} is missing.`);
      const patch = await files.readPatch(dubKeys.take(dub.sessionId, dub.id, `${found.id}.patch`)).catch(async (error: unknown) => {
        if (!(await store.take(dub.id, found.id))) throw this.replaced(found);
        throw error;
      });
      const fd = fs.openSync(tmp, 'r+');
      try {
        const layout = readWavLayout(fd);
        const { start_frame: start, end_frame: end } = render.region;
        writeFrames(fd, layout, start, crossfadeRegion(readFrames(fd, layout, start, end - start), patch.samples, layout.channels, patch.fadeIn, patch.fadeOut));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      const number = await store.transaction(async (tx) => {
        if (!(await tx.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
        const now = (await tx.dubById(dub.id))!;
        if (!(await tx.take(dub.id, found.id))) throw this.replaced(found);
        const active = await tx.activeRevoice(dub.id);
        if (active) throw new ConflictError(`A revoice is running (${active.id}); choose a take once it has finished.`);
        if (now.currentRevision !== baseRevision.number) throw new ConflictError('The dub has a new current revision since; choose the take again.');
        const lines = await tx.lines(dub.id);
        const index = lines.findIndex((l) => l.id === line.id);
        if (index < 0) throw new NotFoundError('Line not found.');
        const plan = plannedLine(lines, index, found.voice, found.speed, now.frames / now.sampleRate);
        if (!takeFits(found, plan)) {
          throw new ConflictError(`Take ${found.number} was rendered for the line as it was; its text or timing (or its neighbours') changed since. Render new takes.`);
        }
        const current = lines[index]!;
        const number = await tx.nextRevisionNumber(dub.id);
        const fileName = `${revisionStem(number)}.wav`;
        // Stored whole before the row naming it commits (a rollback leaves a file the start-up sweep removes).
        await files.store(dubKeys.revision(dub.sessionId, dub.id, fileName), tmp);
        // A recorded take has no voice or speed of its own: the line keeps its own.
        const recorded = found.source === 'recorded';
        const takeSpeed = recorded ? current.speed : found.speed;
        const chosen: LineRender = { ...render, revision: number, revoice_id: null, take_id: found.id, text: current.text, voice: found.voice, speed: takeSpeed };
        await tx.insertRevision(dub.id, {
          number,
          base: baseRevision.number,
          source: 'take',
          revoiceId: null,
          takeId: found.id,
          fileName,
          renders: { ...baseRevision.renders, [line.id]: chosen },
          linesRevoiced: [line.id],
        });
        await tx.updateDub(dub.id, { currentRevision: number });
        // The line reads as the take: its own voice when the take's is not the one it would get anyway.
        const ownVoice = found.voice === this.deps.effectiveVoice(now, { ...current, voice: null }) && current.voice === null ? null : found.voice;
        const voice = recorded ? current.voice : ownVoice;
        const changed = voice !== current.voice || takeSpeed !== current.speed;
        await tx.updateLine(dub.id, { id: current.id, text: current.text, voice, start: current.start, end: current.end, speed: takeSpeed, reviewStatus: 'todo' });
        if (changed) {
          const after = (await tx.lines(dub.id)).find((l) => l.id === current.id)!;
          await tx.insertEdit(dub.id, { op: 'correct', author, before: [current], after: [after] });
        }
        return number;
      });
      const after = (await store.dubById(dub.id))!;
      return { line: await this.deps.lineJson(dub.id, line.id), revision: await this.deps.revisionJson(after, number, baseUrl) };
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
}
