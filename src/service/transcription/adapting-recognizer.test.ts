import { describe, expect, it } from 'vitest';
import { adaptingRecognizer } from './adapting-recognizer';
import { chunkProfiles, type ChunkProfiles } from './chunk-profiles';
import { spectralVoiceMatcher } from '../speakers/voice-matcher';
import { profileOfSpans } from '../speech/speakers/span-profile';
import { SAMPLE_RATE, type RecognizeOptions, type Recognizer } from '../speech/types';
import { glide, whiteNoise } from '../../../test/helpers/signals';

function recorder(): Recognizer & { calls: RecognizeOptions[] } {
  const calls: RecognizeOptions[] = [];
  return { id: 'fake', calls, recognize: async (_pcm, options = {}) => (calls.push(options), []), close: async () => {} };
}

describe('adaptingRecognizer', () => {
  // Two clearly different "voices": a pitch glide and noise.
  const voiced = glide(120, 220, 3, SAMPLE_RATE, 0.3);
  const noise = whiteNoise(3 * SAMPLE_RATE, 0.1, 7);
  const profile = (pcm: Float32Array) => profileOfSpans(pcm, [{ start: 0, end: pcm.length / SAMPLE_RATE }])!;

  it('decodes a chunk that sounds like an adapted speaker with that speaker’s transform, others without', async () => {
    const inner = recorder();
    const speakers = [{ id: 'a', profile: profile(voiced), transform: '/data/a.mllr' }];
    const { recognizer, use } = adaptingRecognizer(inner, speakers, spectralVoiceMatcher);
    await recognizer.recognize(voiced, { offset: 4 });
    await recognizer.recognize(noise, { offset: 8 });
    expect(inner.calls).toEqual([{ offset: 4, mllr: '/data/a.mllr' }, { offset: 8 }]);
    expect(use()).toMatchObject({ chunks: 2, speakers: [{ speaker_id: 'a', chunks: 1, seconds: 3 }] });
    expect(use().profileMs).toBeGreaterThanOrEqual(0);
  });

  it('takes each chunk’s profile from the request’s measurements (shared with the within-recording wrapper)', async () => {
    const inner = recorder();
    const shared = chunkProfiles();
    const measuredBefore = shared.of(voiced);
    const asked: Float32Array[] = [];
    const profiles: ChunkProfiles = { of: (pcm) => (asked.push(pcm), shared.of(pcm)), ms: shared.ms };
    const speakers = [{ id: 'a', profile: profile(voiced), transform: '/data/a.mllr' }];
    const { recognizer, use } = adaptingRecognizer(inner, speakers, spectralVoiceMatcher, profiles);
    await recognizer.recognize(voiced);
    expect(asked.length).toBe(1);
    expect(asked[0]).toBe(voiced);
    expect(shared.of(voiced)).toBe(measuredBefore);
    expect(inner.calls).toEqual([{ mllr: '/data/a.mllr' }]);
    expect(use().profileMs).toBe(Math.round(shared.ms()));
  });

  it('passes a speaker’s MAP means where corrections made them, with the transform to fall back on', async () => {
    const inner = recorder();
    const speakers = [{ id: 'a', profile: profile(voiced), transform: '/data/a.mllr', means: '/data/a/means' }];
    const { recognizer } = adaptingRecognizer(inner, speakers, spectralVoiceMatcher);
    await recognizer.recognize(voiced, { offset: 1, mllr: '/within/voice0.mllr' });
    await recognizer.recognize(noise, { offset: 5 });
    expect(inner.calls).toEqual([{ offset: 1, mllr: '/data/a.mllr', means: '/data/a/means' }, { offset: 5 }]);
  });

  it('leaves every chunk un-adapted when no speaker matches', async () => {
    const inner = recorder();
    const { recognizer, use } = adaptingRecognizer(inner, [{ id: 'n', profile: profile(noise), transform: '/n.mllr' }], spectralVoiceMatcher);
    await recognizer.recognize(voiced);
    expect(inner.calls).toEqual([{}]);
    expect(use().speakers).toEqual([]);
  });
});
