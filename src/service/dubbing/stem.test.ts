import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRanges, stemStream } from './stem';
import { parseWavHeader } from '../media/wav';

describe('mergeRanges', () => {
  it('sorts, drops empty ranges and joins overlapping or touching ones', () => {
    expect(mergeRanges([{ start: 10, end: 20 }, { start: 0, end: 5 }, { start: 5, end: 7 }, { start: 15, end: 30 }, { start: 40, end: 40 }])).toEqual([
      { start: 0, end: 7 },
      { start: 10, end: 30 },
    ]);
  });
});

describe('stemStream', () => {
  it('keeps the header and the kept frames, silences the rest, at the same length', async () => {
    // 16-bit stereo WAV, 1000 frames of non-zero samples.
    const frames = 1000;
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + frames * 4, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(2, 22);
    header.writeUInt32LE(8000, 24);
    header.writeUInt32LE(32000, 28);
    header.writeUInt16LE(4, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    header.writeUInt32LE(frames * 4, 40);
    const data = Buffer.alloc(frames * 4);
    for (let i = 0; i < frames * 2; i++) data.writeInt16LE((i % 1000) + 1, i * 2);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stem-')), 'r.wav');
    const original = Buffer.concat([header, data]);
    fs.writeFileSync(file, original);
    const { stream, size } = stemStream(file, [{ start: 100, end: 200 }, { start: 150, end: 300 }, { start: 990, end: 5000 }]);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const out = Buffer.concat(chunks);
    expect(out.length).toBe(size);
    expect(out.length).toBe(44 + frames * 4);
    expect(parseWavHeader(out)).toMatchObject({ channels: 2, sampleRate: 8000, frames });
    const frame = (b: Buffer, i: number) => b.subarray(44 + i * 4, 44 + (i + 1) * 4);
    for (let i = 0; i < frames; i++) {
      const kept = (i >= 100 && i < 300) || i >= 990;
      expect(frame(out, i).equals(kept ? frame(original, i) : Buffer.alloc(4)), `frame ${i}`).toBe(true);
    }
  });
});
