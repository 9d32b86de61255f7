import { describe, expect, it } from 'vitest';
import { chunkProfiles } from './chunk-profiles';
import { profileOfSpans } from '../speech/speakers/span-profile';
import { SAMPLE_RATE } from '../speech/types';
import { glide } from '../../../test/helpers/signals';

describe('chunkProfiles', () => {
  it('measures a chunk once and gives the same profile to every asker', () => {
    const chunk = glide(120, 220, 2, SAMPLE_RATE, 0.3);
    const profiles = chunkProfiles();
    const first = profiles.of(chunk);
    expect(first).toEqual(profileOfSpans(chunk, [{ start: 0, end: 2 }]));
    const spent = profiles.ms();
    expect(profiles.of(chunk)).toBe(first);
    expect(profiles.ms()).toBe(spent);
    // Another chunk with the same samples is another chunk.
    expect(profiles.of(chunk.slice())).not.toBe(first);
  });

  it('gives null for a chunk too short to measure', () => {
    expect(chunkProfiles().of(new Float32Array(10))).toBeNull();
  });
});
