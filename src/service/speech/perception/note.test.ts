import { describe, expect, it } from 'vitest';
import { editorNote, type NoteInput } from './note';

function input(over: Partial<NoteInput> = {}): NoteInput {
  return {
    labels: [],
    grade: 'good',
    score: 0.62,
    prosody: { pace_vs_speaker: 1, energy_vs_speaker_db: 0, pitch_range_vs_speaker_st: 0, hesitations: 0, longest_pause: 0 },
    issues: [],
    emphasis: [],
    restarts: [],
    ending_drop_db: null,
    ...over,
  };
}

describe('editor note', () => {
  it('a severe signal issue leads, with its evidence', () => {
    const issues = [{ type: 'off_mic', severity: 0.7, evidence: 'direct-to-reverberant −6 dB', source: 'measured' as const }];
    expect(editorNote(input({ issues, labels: ['rushed'] }))).toBe('Off mic (direct-to-reverberant −6 dB); repair it or use another take.');
  });

  it('names the most pressing label with its value and what to do, then the others', () => {
    const note = editorNote(input({ labels: ['rushed', 'flat'], prosody: { ...input().prosody, pace_vs_speaker: 1.32, pitch_range_vs_speaker_st: -4 } }));
    expect(note).toBe("Rushed: 32% faster than this speaker's usual pace — consider a slower take; also flat.");
    expect(editorNote(input({ labels: ['hesitant'], prosody: { ...input().prosody, hesitations: 3, longest_pause: 0.9 } }))).toBe(
      'Hesitant: 3 hesitations, longest pause 0.9 s — tighten the pauses or pick another take.',
    );
  });

  it('a restart, emphasis, or the grade otherwise', () => {
    expect(editorNote(input({ restarts: [{ first: 0, repeat: 1, words: 'I' }] }))).toBe('Restarts at “I”; trim the false start.');
    const emphasis = [{ word_index: 1, word: 'never', start: 0, end: 0.3, strength: 0.6, source: 'estimate' as const }];
    expect(editorNote(input({ labels: ['emphatic'], emphasis, score: 0.8 }))).toBe('Emphatic on “never”; a lively take (delivery 0.80).');
    expect(editorNote(input({ grade: 'great', score: 0.8 }))).toBe('Strong, lively take (delivery 0.80); a good select.');
    expect(editorNote(input())).toBe('Even delivery (0.62); usable as it is.');
  });
});
