import { describe, expect, it } from 'vitest';
import { STAGES } from '../../../service/analysis/stages';
import { isAnalysisActive, progressText, stageName } from './stages';

describe('stageName', () => {
  it('names every stage the service runs in words, never by its id', () => {
    for (const { name } of STAGES) {
      const label = stageName(name);
      expect(label).not.toBe(name);
      expect(label).toMatch(/^[A-Z]/);
    }
    expect(stageName('awaiting_transcript')).toBe('Waiting for the transcript');
  });

  it('makes a readable name of a stage it does not know', () => {
    expect(stageName('speaker_arcs')).toBe('Speaker arcs');
  });
});

describe('progress', () => {
  it('polls only while queued or running', () => {
    expect(isAnalysisActive('queued')).toBe(true);
    expect(isAnalysisActive('running')).toBe(true);
    for (const s of ['none', 'complete', 'failed', 'unavailable'] as const)
      expect(isAnalysisActive(s)).toBe(false);
  });

  it('counts the lines measured so far while lines are being published', () => {
    const coverage = { segments: 120, measured: 40, listened: 0 };
    expect(progressText({ status: 'running', stage: 'quality', coverage })).toBe(
      'Measuring each line’s quality · 40 of 120 lines',
    );
    expect(
      progressText({ status: 'running', stage: 'prosody', coverage: { ...coverage, measured: 0 } }),
    ).toBe('Measuring pitch, level and pace');
    expect(progressText({ status: 'queued', stage: 'queued', coverage })).toBe('Waiting to start');
    expect(progressText({ status: 'running', stage: 'queued', coverage })).toBe('Starting');
  });
});
