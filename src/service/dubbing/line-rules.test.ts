import { describe, expect, it } from 'vitest';
import type { LineRender } from '../../shared/schemas';
import { checkRetiming, checkUploadedLines, lineState } from './line-rules';

const line = (start: number, end: number, text = 'Hello there.') => ({ speaker: 'S1', start, end, text });

describe('checkUploadedLines', () => {
  it('orders and numbers lines, clamping ends to the dub', () => {
    const result = checkUploadedLines([line(5, 6), line(1, 2), line(8, 10.03)], 10);
    expect(result).toEqual({
      ok: true,
      lines: [
        { ...line(1, 2), id: 1 },
        { ...line(5, 6), id: 2 },
        { ...line(8, 10), id: 3 },
      ],
    });
  });

  it('names each problem by its index in the upload', () => {
    const result = checkUploadedLines([line(3, 2), line(1, 20)], 10);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.loc, i.type])).toEqual([
      [['lines', 0, 'end'], 'line_order'],
      [['lines', 1, 'end'], 'line_outside_dub'],
    ]);
    const overlap = checkUploadedLines([line(4, 6), line(1, 4.5)], 10);
    expect(overlap.ok ? [] : overlap.issues).toMatchObject([{ loc: ['lines', 0, 'start'], type: 'line_overlap', ctx: { overlaps: 1 } }]);
    // Touching lines do not overlap.
    expect(checkUploadedLines([line(1, 2), line(2, 3)], 10).ok).toBe(true);
  });
});

describe('checkRetiming', () => {
  const lines = [
    { id: 1, start: 0, end: 2 },
    { id: 2, start: 3, end: 4 },
    { id: 3, start: 5, end: 6 },
  ];
  it('allows moving within the neighbours and refuses crossing them', () => {
    expect(checkRetiming(lines, 2, 2, 5, 10)).toEqual({ ok: true, start: 2, end: 5 });
    expect(checkRetiming(lines, 2, 1.9, 4, 10)).toMatchObject({ ok: false, issues: [{ loc: ['start'], type: 'line_overlap' }] });
    expect(checkRetiming(lines, 2, 3, 5.1, 10)).toMatchObject({ ok: false, issues: [{ loc: ['end'], type: 'line_overlap' }] });
    expect(checkRetiming(lines, 3, 5, 12, 10)).toMatchObject({ ok: false, issues: [{ type: 'line_outside_dub' }] });
    expect(checkRetiming(lines, 2, 4, 4, 10)).toMatchObject({ ok: false, issues: [{ type: 'line_order' }] });
  });
});

describe('lineState', () => {
  const base = { text: 'Hello.', originalText: 'Hello.', start: 1, end: 2 };
  const render = { text: 'Hi.', voice: 'flite/rms', line_start: 1, line_end: 2 } as LineRender;
  it('follows corrections, voicing and later changes', () => {
    expect(lineState(base, 'flite/rms', undefined)).toEqual({ state: 'original', needsRevoice: false });
    expect(lineState({ ...base, text: 'Hi.' }, 'flite/rms', undefined)).toEqual({ state: 'corrected', needsRevoice: true });
    expect(lineState({ ...base, text: 'Hi.' }, 'flite/rms', render)).toEqual({ state: 'voiced', needsRevoice: false });
    expect(lineState({ ...base, text: 'Hi.' }, 'flite/slt', render)).toEqual({ state: 'corrected', needsRevoice: true });
    expect(lineState({ ...base, text: 'Hi.', end: 2.5 }, 'flite/rms', render)).toEqual({ state: 'corrected', needsRevoice: true });
    // Back to the original words after being voiced: the revision still has the voiced words.
    expect(lineState(base, 'flite/rms', render)).toEqual({ state: 'corrected', needsRevoice: true });
  });

  it('asks for a revoice of a line whose only change is its own voice or its speed', () => {
    expect(lineState({ ...base, voice: 'flite/slt', originalVoice: null }, 'flite/slt', undefined)).toEqual({ state: 'corrected', needsRevoice: true });
    expect(lineState({ ...base, speed: 1.1 }, 'flite/rms', undefined)).toEqual({ state: 'corrected', needsRevoice: true });
    // The voice it was made with (an uploaded line naming one), or back to it: the original performance.
    expect(lineState({ ...base, voice: 'flite/slt', originalVoice: 'flite/slt' }, 'flite/slt', undefined)).toEqual({ state: 'original', needsRevoice: false });
    expect(lineState({ ...base, voice: null, originalVoice: null, speed: null }, 'flite/rms', undefined)).toEqual({ state: 'original', needsRevoice: false });
    // Voiced at that voice and speed: done.
    const voicedAt = { ...render, text: 'Hello.', voice: 'flite/slt', speed: 1.1 } as LineRender;
    expect(lineState({ ...base, voice: 'flite/slt', originalVoice: null, speed: 1.1 }, 'flite/slt', voicedAt)).toEqual({ state: 'voiced', needsRevoice: false });
  });

  it('asks for a revoice of a voiced line whose guide changed, but not of an original line or a chosen take', () => {
    const line = { ...base, text: 'Hi.' };
    expect(lineState(line, 'flite/rms', render, false, 'original')).toEqual({ state: 'corrected', needsRevoice: true });
    expect(lineState(line, 'flite/rms', { ...render, guide: 'original' }, false, 'original')).toEqual({ state: 'voiced', needsRevoice: false });
    expect(lineState(line, 'flite/rms', { ...render, guide: 'original' }, false, null)).toEqual({ state: 'corrected', needsRevoice: true });
    expect(lineState(line, 'flite/rms', { ...render, take_id: '5b0c4f8e-2d1a-4c3b-9e7f-0a1b2c3d4e5f' }, false, 'original')).toEqual({ state: 'voiced', needsRevoice: false });
    // The guide only matters once a line is voiced: the original performance stays.
    expect(lineState(base, 'flite/rms', undefined, false, 'original')).toEqual({ state: 'original', needsRevoice: false });
  });
});
