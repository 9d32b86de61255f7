import fs from 'node:fs';
import { Readable } from 'node:stream';
import { frameBytes, readWavLayout } from '../media/wav';

/** Bytes read and sent at a time. */
const CHUNK = 1 << 20;

/** Merges [start, end) frame ranges into sorted, disjoint ones. */
export function mergeRanges(ranges: Array<{ start: number; end: number }>): Array<{ start: number; end: number }> {
  const sorted = ranges.filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const out: Array<{ start: number; end: number }> = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/**
 * The stem of a revision for the mixer: the file as it is (same header, format and length) with every
 * frame outside `regions` set to digital silence (zero bytes: 0 in every integer format and +0.0 in
 * float). Streams, so any length is sent in constant memory. Returns the stream and its byte length.
 */
export function stemStream(revisionFile: string, regions: Array<{ start: number; end: number }>): { stream: Readable; size: number } {
  const fd = fs.openSync(revisionFile, 'r');
  const size = fs.fstatSync(fd).size;
  let layout;
  try {
    layout = readWavLayout(fd);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  const bytes = frameBytes(layout);
  const dataEnd = layout.dataOffset + layout.frames * bytes;
  const keep = mergeRanges(regions).map((r) => ({
    start: layout.dataOffset + Math.max(0, Math.min(layout.frames, r.start)) * bytes,
    end: layout.dataOffset + Math.max(0, Math.min(layout.frames, r.end)) * bytes,
  }));
  // Header and anything after the samples are copied; within the samples only the kept ranges are.
  const copied = (from: number, to: number) => from < layout.dataOffset || from >= dataEnd || keep.some((k) => from >= k.start && to <= k.end);
  const boundaries = [...new Set([0, layout.dataOffset, dataEnd, size, ...keep.flatMap((k) => [k.start, k.end])])].filter((b) => b <= size).sort((a, b) => a - b);
  async function* pieces() {
    try {
      for (let i = 0; i + 1 < boundaries.length; i++) {
        const from = boundaries[i]!;
        const to = boundaries[i + 1]!;
        for (let at = from; at < to; at += CHUNK) {
          const length = Math.min(CHUNK, to - at);
          const buffer = Buffer.alloc(length);
          if (copied(from, to)) fs.readSync(fd, buffer, 0, length, at);
          yield buffer;
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return { stream: Readable.from(pieces()), size };
}
