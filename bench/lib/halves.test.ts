import { describe, expect, it } from 'vitest';
import { halves, sourceOf } from './halves';

describe('halves', () => {
  it('alternates within each source after sorting, duplicates once, a lone file to tuning', () => {
    const h = halves(['ljspeech_b', 'amateur_x', 'ljspeech_a', 'ljspeech_c', 'amateur_y', 'jfk_jfk', 'jfk_jfk', 'trn02', 'trn01', 'sample']);
    expect(Object.fromEntries(h)).toEqual({
      ljspeech_a: 'tune',
      ljspeech_b: 'test',
      ljspeech_c: 'tune',
      amateur_x: 'tune',
      amateur_y: 'test',
      jfk_jfk: 'tune',
      trn01: 'tune',
      trn02: 'test',
      sample: 'tune',
    });
    expect(sourceOf('trn07')).toBe('ami');
    expect(sourceOf('librispeech_test_clean_1089')).toBe('librispeech');
  });
});
