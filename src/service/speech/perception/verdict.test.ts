import { describe, expect, it } from 'vitest';
import type { AudienceEvent, QualityIssue } from '../../../shared/schemas/analysis';
import { lineVerdict, spoilers, type VerdictInput } from './verdict';

const issue = (type: string, severity: number): QualityIssue => ({ type, severity, evidence: `${type} evidence`, source: 'measured' });
const verdict = (over: Partial<VerdictInput> = {}) =>
  lineVerdict({ spoilers: [], quality: { score: 0.8, issues: [] }, labels: [], grade: 'good', restarts: 0, ...over }).standing;

describe('the line verdict', () => {
  it('the first standing that holds, in order', () => {
    expect(verdict()).toBe('usable');
    expect(verdict({ labels: ['emphatic'], grade: 'great' })).toBe('usable');
    expect(verdict({ restarts: 1 })).toBe('fix');
    expect(verdict({ labels: ['quiet'] })).toBe('fix');
    expect(verdict({ labels: ['quiet'], quality: { score: 0.4, issues: [] } })).toBe('check');
    expect(verdict({ labels: ['rushed'], quality: { score: 0.4, issues: [] } })).toBe('retake');
    expect(verdict({ grade: 'weak' })).toBe('retake');
    expect(verdict({ labels: ['rushed'], quality: { score: 0.8, issues: [issue('plosive', 0.5)] } })).toBe('repair');
    expect(verdict({ spoilers: [{ text: 'x', severity: 0.7 }], quality: { score: 0.8, issues: [issue('plosive', 0.5)] } })).toBe('unusable');
  });

  it('spoilers: every cause, worst first, on the speech span', () => {
    const line = { speaker: 'S1', speech_start: 10, speech_end: 14, quality: { score: 0.2, issues: [issue('hum', 0.65), issue('plosive', 0.9), issue('reverb', 0.55)] } };
    const others = [line, { speaker: 'S2', speech_start: 12.5, speech_end: 20 }, { speaker: 'S3', speech_start: 0, speech_end: 10.2 }];
    const events: AudienceEvent[] = [{ type: 'laughter', start: 11, end: 14, speaker: 'S1', during_speech: true, confidence: 0.9, sources: ['heard'] }];
    expect(spoilers(line, others, events)).toEqual([
      { text: 'poor signal quality (score 0.20)', severity: 0.8 },
      { text: 'laughter over 75% of the words', severity: 0.75 },
      { text: 'hum (hum evidence)', severity: 0.65 },
      { text: "overlaps S2's speech for 1.5 s", severity: 0.375 },
    ]);
    // Under a second of speech, a poor score alone does not condemn the line; repairable issues never do.
    expect(spoilers({ ...line, speech_end: 10.8, quality: { score: 0.2, issues: [issue('plosive', 1), issue('low_level', 1)] } }, [], [])).toEqual([]);
  });
});
