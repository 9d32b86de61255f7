import { describe, expect, it } from 'vitest';
import { firstHeardNote, matchCertainty, nameLabels, speakerDisplayName, speakersInOrder } from './speaker-names';

describe('speakerDisplayName', () => {
  const map = { S1: { name: 'Ada' }, S2: { name: '   ' }, S3: { name: 'Speaker  4 ' } };
  it("is the speaker map's name, as the exports use it", () => {
    expect(speakerDisplayName('S1', map)).toBe('Ada');
    expect(speakerDisplayName('S3', map)).toBe('Speaker 4');
  });
  it('falls back to the label for a blank name, an unmapped label or no map', () => {
    expect(speakerDisplayName('S2', map)).toBe('S2');
    expect(speakerDisplayName('S9', map)).toBe('S9');
    expect(speakerDisplayName('S1', undefined)).toBe('S1');
  });
});

describe('matchCertainty', () => {
  it('shows the similarity as a percentage with a level judged against the threshold', () => {
    expect(matchCertainty(0.9771, 0.9615)).toMatchObject({ level: 'fair', text: 'match 97.7%' });
    expect(matchCertainty(0.995, 0.9615)).toMatchObject({ level: 'strong', text: 'match 99.5%' });
    expect(matchCertainty(0.5, 0.9615)).toMatchObject({ level: 'weak', text: 'match 50.0%' });
    expect(matchCertainty(1.2, 0.9615).text).toBe('match 100.0%');
    expect(matchCertainty(0.97, 0.9615).title).toContain('from 0.9615');
  });

  it('follows the threshold: the upper half of the room above it is a close match, under it weak', () => {
    // The same similarity reads differently as the service's threshold moves.
    expect(matchCertainty(0.975, 0.9).level).toBe('strong'); // 0.9 + 0.05 = 0.95 ≤ 0.975
    expect(matchCertainty(0.975, 0.96).level).toBe('fair'); // close from 0.98
    expect(matchCertainty(0.975, 0.98).level).toBe('weak'); // under the line now
    // Edges: the threshold itself is fair, the half-way point strong.
    expect(matchCertainty(0.96, 0.96).level).toBe('fair');
    expect(matchCertainty(0.98, 0.96).level).toBe('strong');
    expect(matchCertainty(0.9799, 0.96).level).toBe('fair');
    expect(matchCertainty(1, 1).level).toBe('strong');
  });
});

describe('nameLabels', () => {
  const name = (l: string) => ({ S1: 'Ada', S12: 'Grace' })[l] ?? l;
  it("names the recording's labels as whole words, leaving other text alone", () => {
    expect(nameLabels('S1 speaks for 0:42; S12 answers S1.', ['S1', 'S12'], name)).toBe('Ada speaks for 0:42; Grace answers Ada.');
    expect(nameLabels('S10 and xS1 and S1-b stay', ['S1'], name)).toBe('S10 and xS1 and S1-b stay');
    expect(nameLabels('S2 has no name', ['S2'], name)).toBe('S2 has no name');
    expect(nameLabels('no labels', [], name)).toBe('no labels');
  });
});

describe("a recording's speakers", () => {
  it('are listed in the order they first speak, not by label', () => {
    const transcript = {
      speakers: ['S1', 'S2', 'S3', 'S4'],
      segments: [
        { speaker: 'S3', start: 0 },
        { speaker: 'S1', start: 2 },
        { speaker: 'S3', start: 3 },
        { speaker: 'S2', start: 9 },
      ],
    };
    expect(speakersInOrder(transcript)).toEqual(['S3', 'S1', 'S2', 'S4']);
    expect(speakersInOrder(null)).toEqual([]);
  });
  it("say where the project's number comes from: the recording the voice was first heard in", () => {
    const here = { number: 8, first_heard_in: { session_id: 'b', file_name: 'meeting.flac' } };
    expect(firstHeardNote('b', here)).toBe('voice 8 of the project · first heard here');
    expect(firstHeardNote('c', here)).toBe('voice 8 of the project · first heard in meeting.flac');
    expect(firstHeardNote('c', undefined)).toBeNull();
  });
});
