import fs from 'node:fs';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { frameBytes, openWav, readFrames, wavHeader } from '../../media/wav';
import { owners, type StemPlan } from './stem-plan';
import { floatsToUnits, readUnits, stemUnits, writeUnits, type StemTarget } from './stem-samples';

/** Frames computed at a time: a stem is streamed in constant memory whatever the dub's length. */
const CHUNK_FRAMES = 1 << 16;

export interface StemsSource {
  /** A local file of the revision (the mix). */
  mixFile: string;
  /** A local file of the music-and-effects stem (f32 at the dub's rate and channels), or null. */
  backgroundFile: string | null;
  plan: StemPlan;
  /** The entries' modification time (the revision's). */
  mtime: Date;
}


/** One stem as a WAV stream in the mix's format, computed chunk by chunk as it is read. */
function stemWav(source: StemsSource, target: StemTarget): Readable {
  async function* pieces() {
    const mix = openWav(source.mixFile);
    const background = source.backgroundFile ? openWav(source.backgroundFile) : null;
    try {
      const { layout } = mix;
      yield wavHeader(layout, layout.frames);
      const size = frameBytes(layout);
      for (let from = 0; from < layout.frames; from += CHUNK_FRAMES) {
        const count = Math.min(CHUNK_FRAMES, layout.frames - from);
        const bytes = Buffer.alloc(count * size);
        fs.readSync(mix.fd, bytes, 0, bytes.length, layout.dataOffset + from * size);
        const under = background ? floatsToUnits(readFrames(background.fd, background.layout, from, count), layout.sampleFormat) : null;
        yield writeUnits(stemUnits(target, readUnits(bytes, layout.sampleFormat), under, owners(source.plan.runs, from, count), layout.channels), layout.sampleFormat);
      }
    } finally {
      fs.closeSync(mix.fd);
      if (background) fs.closeSync(background.fd);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}

/**
 * The stems of a revision as one zip, streamed: `mix.wav` (the revision as stored), `background.wav` and
 * one `speaker-<name>.wav` per speaker, all in the revision's format and length, so they line up at zero.
 * Entries are stored, not deflated (WAV barely compresses, and stored entries give the zip's size before
 * it is sent). Each entry's samples are computed only when the zip reaches it.
 */
export function stemsZip(source: StemsSource): { stream: Readable; size: Promise<number> } {
  const { fd, layout } = openWav(source.mixFile);
  fs.closeSync(fd);
  const mixSize = fs.statSync(source.mixFile).size;
  const stemSize = wavHeader(layout, layout.frames).length + layout.frames * frameBytes(layout);
  const zip = new ZipFile();
  const options = { mtime: source.mtime, compress: false };
  zip.addReadStreamLazy('mix.wav', { ...options, size: mixSize }, (cb) => cb(null, fs.createReadStream(source.mixFile)));
  zip.addReadStreamLazy('background.wav', { ...options, size: stemSize }, (cb) => cb(null, stemWav(source, { kind: 'background' })));
  source.plan.speakers.forEach((speaker, index) => {
    zip.addReadStreamLazy(speaker.fileName, { ...options, size: stemSize }, (cb) => cb(null, stemWav(source, { kind: 'speaker', index })));
  });
  const stream = zip.outputStream as Readable;
  // A stem that fails to read (its file gone from under it) ends the download as an error, not a short zip.
  zip.on('error', (error: Error) => stream.destroy(error));
  // yazl passes the total size to this callback (its types declare it without the argument).
  const end = zip.end.bind(zip) as unknown as (options: undefined, sized: (total: number) => void) => void;
  const size = new Promise<number>((resolve) => end(undefined, resolve));
  return { stream, size };
}
