import { describe, expect, it } from 'vitest';
import { correctedAmount, learningNote } from './learning-note';

describe('learningNote', () => {
  it('says how much corrected speech of whom the next recordings are recognized with', () => {
    expect(learningNote([{ name: 'Ada', correctedSeconds: 185 }])).toBe('3 corrected minutes of Ada: Ada’s next recordings are recognized with them');
    expect(learningNote([{ name: 'Bo', correctedSeconds: 12.4 }, { name: 'Ada', correctedSeconds: 100 }, { name: 'Cy', correctedSeconds: 0 }])).toBe(
      '2 corrected minutes of Ada: Ada’s next recordings are recognized with them; also 12 corrected seconds of Bo',
    );
  });
  it('says nothing until a speaker’s adaptation uses corrected speech', () => {
    expect(learningNote([])).toBeNull();
    expect(learningNote([{ name: 'Ada', correctedSeconds: 0 }])).toBeNull();
  });
  it('counts seconds under a minute and a half, whole minutes after', () => {
    expect(correctedAmount(0.4)).toBe('1 corrected second');
    expect(correctedAmount(89)).toBe('89 corrected seconds');
    expect(correctedAmount(90)).toBe('2 corrected minutes');
    expect(correctedAmount(60 * 1.2 + 30)).toBe('2 corrected minutes');
  });
});
