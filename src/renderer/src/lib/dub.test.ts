import { describe, expect, it } from 'vitest';
import type { DubLine, DubRevision, SpeechModel } from '../api/types';
import { abRevisions, abWindow, cutShare, flagLabel, isWarningFlag, preparingLabel, unfitLabel, voiceChoices } from './dub';

const revision = (number: number, base: number | null) => ({ number, base }) as DubRevision;
const line = (render: { revision: number; region: { start: number; end: number } } | null) =>
  ({ start: 10, end: 12, render }) as unknown as DubLine;

describe('dub view helpers', () => {
  it('lists the voices of tts models as <model>/<voice>', () => {
    const models = [
      { id: 'pocketsphinx-en-us', kind: 'stt' },
      { id: 'flite', kind: 'tts', voices: [{ id: 'rms', gender: 'male', language: 'en-US' }] },
    ] as unknown as SpeechModel[];
    expect(voiceChoices(models)).toEqual([{ ref: 'flite/rms', label: 'flite · rms (male, en-US)', short: 'rms · flite' }]);
  });

  it('compares a voiced line with the revision before its voicing, others with the current base', () => {
    const revisions = [revision(1, null), revision(2, 1), revision(3, 2)];
    expect(abRevisions(line({ revision: 2, region: { start: 9.98, end: 12.02 } }), revisions, 3)).toEqual({ before: 1, after: 3 });
    expect(abRevisions(line(null), revisions, 3)).toEqual({ before: 2, after: 3 });
    expect(abRevisions(line(null), revisions, 1)).toEqual({ before: 1, after: 1 });
  });

  it('plays the slot with a little either side', () => {
    expect(abWindow(line(null))).toEqual({ start: 9.7, end: 12.3 });
    expect(abWindow(line({ revision: 2, region: { start: 9.98, end: 12.5 } }))).toEqual({ start: expect.closeTo(9.68, 9), end: 12.8 });
  });

  it('labels flags and tells warnings apart', () => {
    expect(flagLabel('does_not_fit')).toBe('does not fit');
    expect(flagLabel('new_flag')).toBe('new flag');
    expect(isWarningFlag('does_not_fit')).toBe(true);
    expect(isWarningFlag('stretched')).toBe(false);
  });
});

describe('cutShare / unfitLabel', () => {
  it('says how much of the new speech a revoice cut: seconds cut over seconds needed', () => {
    // 1.8 s sounded in the slot, 4.63 s cut: 72 % of the line never plays.
    const render = { overflow: 4.63, speech: { start: 10, end: 11.8 } };
    expect(cutShare(render)).toBeCloseTo(4.63 / 6.43, 9);
    expect(unfitLabel(render)).toBe('does not fit: 72 % cut (4.6 s)');
  });

  it('is 0 for a line that fit, and for an empty one', () => {
    expect(cutShare({ overflow: 0, speech: { start: 1, end: 2 } })).toBe(0);
    expect(cutShare({ overflow: 0, speech: { start: 1, end: 1 } })).toBe(0);
  });
});

describe('preparingLabel', () => {
  it("says what a preparing dub is doing, from its job's stage", () => {
    expect(preparingLabel({ source: 'recording', stage: 'queued' })).toBe('Starting to prepare the dub from the recording');
    expect(preparingLabel({ source: 'recording', stage: 'converting audio' })).toBe("Converting the recording's audio");
    expect(preparingLabel({ source: 'recording', stage: 'drawing the waveform' })).toBe('Drawing the waveform');
    expect(preparingLabel({ source: 'upload', stage: 'queued' })).toBe('Waiting to transcribe the dub');
    expect(preparingLabel({ source: 'upload', stage: 'recognizing' })).toBe('Deriving lines (transcribing the dub: recognizing)');
  });
});
