import { describe, expect, it } from 'vitest';
import { firstAppearance } from './project-speakers';

describe('firstAppearance', () => {
  it('ranks labels by when they first speak, not by their number or length', () => {
    const order = firstAppearance({
      segments: [
        { speaker: 'S3', start: 0 },
        { speaker: 'S1', start: 4 },
        { speaker: 'S3', start: 6 },
        { speaker: 'S2', start: 4 },
      ],
    });
    expect(['S1', 'S2', 'S3', 'S9'].sort((a, b) => order(a) - order(b))).toEqual(['S3', 'S1', 'S2', 'S9']);
  });
});
