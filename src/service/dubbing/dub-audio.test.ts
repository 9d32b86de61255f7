import { describe, expect, it } from 'vitest';
import { storedSampleFormat } from './dub-audio';

describe('storedSampleFormat', () => {
  it('keeps every decoded sample exactly', () => {
    expect(storedSampleFormat('s16', 16)).toBe('s16');
    expect(storedSampleFormat('s16p', null)).toBe('s16');
    expect(storedSampleFormat('u8', 8)).toBe('s16');
    // 24-bit FLAC and WAV decode to s32 with 24 significant bits.
    expect(storedSampleFormat('s32', 24)).toBe('s24');
    expect(storedSampleFormat('s32p', 24)).toBe('s24');
    expect(storedSampleFormat('s32', 32)).toBe('s32');
    expect(storedSampleFormat('s32', null)).toBe('s32');
    // mp3, aac, opus decode to float.
    expect(storedSampleFormat('fltp', null)).toBe('f32');
    expect(storedSampleFormat('dbl', null)).toBe('f32');
  });
});
