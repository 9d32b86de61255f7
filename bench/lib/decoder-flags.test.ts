import { describe, expect, it } from 'vitest';
import { decoderFlagPairs, parseDecoderFlags } from './decoder-flags';

describe('decoder flags from a command line', () => {
  it('pairs flags with their values, the last value of a repeated flag winning', () => {
    expect(decoderFlagPairs(['-pl_weight', '5', '-maxhmmpf', '8000', '-pl_weight', '3'])).toEqual({ '-pl_weight': '3', '-maxhmmpf': '8000' });
  });

  it('splits one string at any whitespace, drops a flag without a value, and reads nothing from nothing', () => {
    expect(parseDecoderFlags('  -beam 1e-60\t-topn  4 -ds')).toEqual({ '-beam': '1e-60', '-topn': '4' });
    expect(parseDecoderFlags(undefined)).toEqual({});
    expect(parseDecoderFlags('')).toEqual({});
  });
});
