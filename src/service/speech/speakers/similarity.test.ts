import { describe, expect, it } from 'vitest';
import { createFeatureMatrix } from '../../dsp/features';
import { computeProfile, PROFILE_CEPSTRA, PROFILE_DIMENSIONS } from './profile';
import { DEFAULT_MATCH_THRESHOLD, matchSpeakers, mergeProfile, profileSimilarity } from './similarity';

const vec = (f: (i: number) => number) => Array.from({ length: PROFILE_DIMENSIONS }, (_, i) => f(i));

describe('profileSimilarity', () => {
  it('is 1 for identical direction, 0.5 for orthogonal, 0 for opposite', () => {
    const a = vec((i) => i + 1);
    expect(
      profileSimilarity(
        a,
        a.map((x) => 3 * x),
      ),
    ).toBeCloseTo(1, 12);
    expect(profileSimilarity([1, 0], [0, 1])).toBeCloseTo(0.5, 12);
    expect(profileSimilarity([1, 2], [-1, -2])).toBeCloseTo(0, 12);
  });
});

describe('matchSpeakers', () => {
  const alice = vec((i) => Math.sin(i + 1));
  const bob = vec((i) => Math.cos(3 * i));
  it('matches one-to-one and leaves strangers unmatched', () => {
    const stranger = vec((i) => (i % 2 ? 1 : -1));
    const got = matchSpeakers(
      { S1: bob.map((x) => x * 1.01), S2: alice, S3: stranger },
      { alice, bob },
      DEFAULT_MATCH_THRESHOLD,
    );
    expect(got.S1!.knownId).toBe('bob');
    expect(got.S2!.knownId).toBe('alice');
    expect(got.S2!.similarity).toBeCloseTo(1, 9);
    expect(got.S3!.knownId).toBeNull();
    expect(got.S3!.similarity).toBeLessThan(DEFAULT_MATCH_THRESHOLD);
  });

  it('never gives one known speaker to two labels', () => {
    const got = matchSpeakers({ S1: alice, S2: alice.map((x) => x * 2) }, { alice }, 0.5);
    const matched = Object.values(got).filter((m) => m.knownId === 'alice');
    expect(matched).toHaveLength(1);
  });

  it('returns unmatched labels when nobody is known', () => {
    expect(matchSpeakers({ S1: alice }, {})).toEqual({ S1: { knownId: null, similarity: 0 } });
  });
});

describe('mergeProfile', () => {
  it('equals the profile of all frames together', () => {
    const m = createFeatureMatrix(6, 20);
    for (let t = 0; t < 6; t++)
      for (let d = 0; d < 20; d++) m.data[t * 20 + d] = Math.sin(t * 1.3 + d) * (t < 2 ? 1 : 3);
    const first = computeProfile(m, [0, 1]);
    const rest = computeProfile(m, [2, 3, 4, 5]);
    const all = computeProfile(m, [0, 1, 2, 3, 4, 5]);
    const merged = mergeProfile({ profile: first, seconds: 2 }, rest, 4);
    expect(merged.seconds).toBe(6);
    merged.profile.forEach((v, i) => expect(v).toBeCloseTo(all[i]!, 5));
    expect(merged.profile).toHaveLength(2 * PROFILE_CEPSTRA);
  });

  it('keeps the known profile when the new evidence has no weight', () => {
    const p = vec((i) => i + 1);
    expect(
      mergeProfile(
        { profile: p, seconds: 10 },
        vec(() => 0),
        0,
      ).profile,
    ).toEqual(p.map((x, i) => (i < PROFILE_CEPSTRA ? x : expect.closeTo(x, 9))));
  });
});
