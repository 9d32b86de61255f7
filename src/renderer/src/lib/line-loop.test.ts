import { describe, expect, it } from 'vitest';
import { loopJump } from './line-loop';

describe('loopJump', () => {
  it('wraps forward play to the start and reverse play to the end', () => {
    expect(loopJump(5.01, 1, 2, 5)).toBe(2);
    expect(loopJump(3, 2, 2, 5)).toBeNull();
    expect(loopJump(1.99, -1, 2, 5)).toBe(5);
    expect(loopJump(3, -1, 2, 5)).toBeNull();
  });
  it('leaves a stopped playhead alone and pulls a far one back in', () => {
    expect(loopJump(9, 0, 2, 5)).toBeNull();
    expect(loopJump(0, 1, 2, 5)).toBe(2);
  });
});
