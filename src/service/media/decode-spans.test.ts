import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE } from '../speech/types';
import { decodeAudioToArray } from './decode';
import { decodeSpans } from './decode-spans';
import { resolveMediaTools } from './tools';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const clip = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr/ljspeech_LJ001-0001.flac');

describe('decoding stretches of a recording', () => {
  it('gives exactly the samples of each stretch, overlapping or not, and shortens one past the end', async () => {
    const tools = resolveMediaTools();
    const whole = await decodeAudioToArray(clip, tools);
    const spans = [
      { start: 2.5, end: 3.25 },
      { start: 0, end: 0.4 },
      { start: 3, end: 4.0001 },
      { start: whole.length / SAMPLE_RATE - 0.5, end: whole.length / SAMPLE_RATE + 2 },
    ];
    const parts = await decodeSpans(clip, tools, spans);
    parts.forEach((pcm, k) => {
      const from = Math.floor(spans[k]!.start * SAMPLE_RATE);
      const to = Math.min(whole.length, Math.ceil(spans[k]!.end * SAMPLE_RATE));
      expect(pcm).toEqual(whole.slice(from, to));
    });
    expect(parts[3]!.length).toBeLessThan(SAMPLE_RATE);
  });
});
