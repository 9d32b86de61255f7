import { describe, expect, it } from 'vitest';
import { speakerHints } from './speaker-hints';

describe('speakerHints', () => {
  it('passes explicit bounds through', () => {
    expect(speakerHints({})).toEqual({});
    expect(speakerHints({ min_speakers: 2, max_speakers: 4 })).toEqual({ minSpeakers: 2, maxSpeakers: 4 });
    expect(speakerHints({ max_speakers: 1 })).toEqual({ maxSpeakers: 1 });
  });

  it('takes the number of known speaker names as the minimum unless one is given', () => {
    expect(speakerHints({ known_speaker_names: ['Ann', 'Bo', 'Cy'] })).toEqual({ minSpeakers: 3 });
    expect(speakerHints({ known_speaker_names: ['Ann', 'Bo', 'Cy'], min_speakers: 1 })).toEqual({ minSpeakers: 1 });
    expect(speakerHints({ known_speaker_names: ['Ann', 'Bo', 'Cy'], max_speakers: 2 })).toEqual({ minSpeakers: 2, maxSpeakers: 2 });
  });
});
