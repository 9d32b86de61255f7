/**
 * A recording of a line, uploaded, made a take beside the synthesized ones: decoded to the dub's rate (mono),
 * processed (process.ts: count-in cut, slot fit, the original line's loudness), placed over the line's slot
 * with the revoice's crossfade on each side, and stored ready: its patch (to put it in) and its audition.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { crossfadeRegion } from '../../dsp/crossfade';
import { decodeToWav } from '../dub-audio';
import { readFrames, readWavLayout, encodeWav } from '../../media/wav';
import type { MediaTools } from '../../media/tools';
import { NotMediaError, probeMedia } from '../../media/probe';
import { outerFades } from '../../speech/synthesis/slot-fit';
import type { DubRecord, DubStore, LineRecord, TakeRecord } from '../../storage/dub-store';
import type { UploadedFile } from '../../storage/uploaded-file';
import type { LineRender } from '../../../shared/schemas';
import { REVOICE_FLAGS } from '../../../shared/schemas';
import { ConflictError, NotFoundError, UnprocessableError, UnsupportedMediaError } from '../../errors';
import { dubKeys, type DubFiles } from '../dub-files';
import { openStoredWav, type OpenedWav } from '../revoice-job';
import { plannedLine } from '../takes';
import { processRecordedTake, type RecordedTakeFlag } from './process';

/** What a recorded take shows as its voice: it has none. */
export const RECORDED_VOICE = 'recorded';

export interface RecordTakeDeps {
  store: DubStore;
  files: DubFiles;
  tools: MediaTools;
}

const toFrame = (seconds: number, rate: number) => Math.round(seconds * rate);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** A recording's flags as a rendering's: one cut at the slot's end did not fit; short and silent have no counterpart. */
function renderFlags(flags: readonly RecordedTakeFlag[]): LineRender['flags'] {
  const out: LineRender['flags'] = [];
  for (const flag of flags) {
    if (flag === 'cut') out.push('does_not_fit');
    else if ((REVOICE_FLAGS as readonly string[]).includes(flag)) out.push(flag as LineRender['flags'][number]);
  }
  return out;
}

/** The recording decoded to mono at the dub's rate; an undecodable file is unsupported media. */
async function decodeRecording(tools: MediaTools, files: DubFiles, file: UploadedFile, sampleRate: number): Promise<Float32Array> {
  if (file.size === 0) throw new UnsupportedMediaError('The recording is empty.', { code: 'unsupported_file', param: 'file' });
  const tmp = files.scratchFile('.wav');
  try {
    // Probed first, as every upload is: its refusal names what the file is, never where it was put.
    try {
      await probeMedia(tools, file.path);
    } catch (error) {
      if (error instanceof NotMediaError) throw new UnsupportedMediaError(`The recording is not audio that can be decoded: ${error.message}`, { code: 'unsupported_file', param: 'file' });
      throw error;
    }
    try {
      await decodeToWav(tools, file.path, tmp, { sampleRate, channels: 1, sampleFormat: 'f32' });
    } catch {
      throw new UnsupportedMediaError('The recording is not audio that can be decoded: ffmpeg could not read its audio.', { code: 'unsupported_file', param: 'file' });
    }
    const fd = fs.openSync(tmp, 'r');
    try {
      const layout = readWavLayout(fd);
      return readFrames(fd, layout, 0, layout.frames);
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The original line's dialogue (the upload, minus the background stem when there is one): the loudness to match. */
function originalDialogue(source: OpenedWav, background: OpenedWav | null, line: LineRecord, rate: number): Float32Array {
  const from = toFrame(line.originalStart, rate);
  const count = Math.max(0, toFrame(line.originalEnd, rate) - from);
  const mix = readFrames(source.fd, source.layout, from, count);
  if (!background) return mix;
  const stem = readFrames(background.fd, background.layout, from, count);
  return mix.map((x, i) => x - stem[i]!);
}

/**
 * Stores an uploaded recording of a line as a ready take (`source: "recorded"`), numbered after the line's
 * takes. The slot is the line's own span; the region adds the revoice's crossfades on each side. Under a
 * background stem the stem plays on beneath the recording (the recording is the dialogue alone).
 */
export async function recordTake(deps: RecordTakeDeps, dub: DubRecord, line: LineRecord, file: UploadedFile, countIn: number): Promise<TakeRecord> {
  const { store, files } = deps;
  if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
  const rate = dub.sampleRate;
  const channels = dub.channels;
  const recording = await decodeRecording(deps.tools, files, file, rate);
  const recorded = recording.length / rate;
  if (recorded <= countIn) {
    throw new UnprocessableError(`The recording is ${recorded.toFixed(2)} s long, no longer than its count-in (${countIn} s): nothing of the line was recorded.`, {
      code: 'recording_too_short',
      param: 'count_in',
    });
  }
  const lines = await store.lines(dub.id);
  const index = lines.findIndex((l) => l.id === line.id);
  if (index < 0) throw new NotFoundError('Line not found.');
  const current = lines[index]!;
  const duration = dub.frames / rate;
  const plan = plannedLine(lines, index, RECORDED_VOICE, current.speed, duration);
  const slotStart = toFrame(current.start, rate);
  const slotEnd = Math.min(dub.frames, toFrame(current.end, rate));
  if (slotEnd <= slotStart) throw new UnprocessableError(`Line ${line.id} has no room to record into.`, { code: 'empty_slot' });
  const fades = outerFades({ start: current.start, end: current.end }, plan.previousEnd, plan.nextStart, duration);
  const startFrame = Math.max(0, toFrame(current.start - fades.before, rate));
  const endFrame = Math.min(dub.frames, Math.max(slotEnd, toFrame(current.end + fades.after, rate)));
  const frames = endFrame - startFrame;

  const source = await openStoredWav(files, dubKeys.revision(dub.sessionId, dub.id, (await store.revision(dub.id, 1))!.fileName));
  let background: OpenedWav | null = null;
  let take: ReturnType<typeof processRecordedTake>;
  let patch: Float32Array;
  try {
    if (dub.background) background = await openStoredWav(files, dubKeys.background(dub.sessionId, dub.id));
    take = processRecordedTake({ samples: recording, sampleRate: rate, preRoll: countIn, slotFrames: slotEnd - slotStart, reference: originalDialogue(source, background, current, rate), channels });
    patch = background ? readFrames(background.fd, background.layout, startFrame, frames) : new Float32Array(frames * channels);
    const offset = (slotStart - startFrame) * channels;
    for (let i = 0; i < take.samples.length; i++) patch[offset + i]! += take.samples[i]!;
  } finally {
    await source.close();
    await background?.close();
  }

  const base = (await store.dubById(dub.id)) ?? dub;
  const baseRevision = (await store.revision(dub.id, base.currentRevision))!;
  const baseWav = await openStoredWav(files, dubKeys.revision(dub.sessionId, dub.id, baseRevision.fileName));
  const fadeIn = slotStart - startFrame;
  const fadeOut = endFrame - slotEnd;
  let audition: Float32Array;
  try {
    audition = crossfadeRegion(readFrames(baseWav.fd, baseWav.layout, startFrame, frames), patch, channels, fadeIn, fadeOut);
  } finally {
    await baseWav.close();
  }
  const body = recorded - countIn;
  const voiced = Math.min(body, (slotEnd - slotStart) / rate);
  const id = crypto.randomUUID();
  const render: LineRender = {
    revision: 0,
    revoice_id: null,
    take_id: id,
    text: current.text,
    voice: RECORDED_VOICE,
    line_start: current.start,
    line_end: current.end,
    slot: { start: round6(slotStart / rate), end: round6(slotEnd / rate) },
    region: { start: startFrame / rate, end: endFrame / rate, start_frame: startFrame, end_frame: endFrame },
    speech: { start: round6(slotStart / rate), end: round6(slotStart / rate + voiced) },
    synthesized_duration: round6(body),
    stretch: 1,
    gain_db: Math.round(take.gainDb * 100) / 100,
    loudness: {
      reference_lufs: take.referenceLufs === null ? null : Math.round(take.referenceLufs * 100) / 100,
      result_lufs: take.resultLufs === null ? null : Math.round(take.resultLufs * 100) / 100,
    },
    overflow: round6(Math.max(0, body - (slotEnd - slotStart) / rate)),
    flags: renderFlags(take.flags),
    words: [],
    speed: current.speed,
  };
  // Both files stored before the row names them (a crash in between leaves files the start-up sweep removes).
  await files.putPatch(dubKeys.take(dub.sessionId, dub.id, `${id}.patch`), { fadeIn, fadeOut, channels, samples: patch });
  await files.blobs.put(dubKeys.take(dub.sessionId, dub.id, `${id}.wav`), encodeWav(audition, baseWav.layout));
  try {
    return await store.transaction(async (tx) => {
      if (!(await tx.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const now = (await tx.lines(dub.id)).find((l) => l.id === line.id);
      if (!now || now.text !== current.text || now.start !== current.start || now.end !== current.end) {
        throw new ConflictError(`Line ${line.id} changed while the recording was processed; record it again.`);
      }
      // A recording has no job; its own id stands in (nothing waits on it: it is ready at once).
      await tx.insertTakes(dub.id, line.id, [{ id, jobId: id, voice: RECORDED_VOICE, speed: current.speed, plan, baseRevision: baseRevision.number, source: 'recorded' }]);
      await tx.setTakeStatus(id, 'ready', { render });
      return (await tx.take(dub.id, id))!;
    });
  } catch (error) {
    await files.removeTake(dub.sessionId, dub.id, id);
    throw error;
  }
}
