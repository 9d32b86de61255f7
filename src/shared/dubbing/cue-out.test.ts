import { describe, expect, it } from 'vitest';
import { cueOut } from './cue-out';

describe('cueOut', () => {
  it('ends a voiced line where its voice ends when the reading borrowed the quiet after it', () => {
    expect(cueOut({ end: 12.5, state: 'voiced', render: { speech: { end: 12.62 } } })).toBe(12.62);
  });

  it("keeps the line's end when its voice ends within it, and for lines not voiced as they are now", () => {
    expect(cueOut({ end: 12.5, state: 'voiced', render: { speech: { end: 12.1 } } })).toBe(12.5);
    // A corrected line still carries an older rendering: it is about to be voiced again in its own slot.
    expect(cueOut({ end: 12.5, state: 'corrected', render: { speech: { end: 12.62 } } })).toBe(12.5);
    expect(cueOut({ end: 12.5, state: 'original', render: null })).toBe(12.5);
  });
});
