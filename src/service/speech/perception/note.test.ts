import { describe, expect, it } from 'vitest';
import { editorNote, NOTE_ADVISES_AGAINST, NOTE_RECOMMENDS, type NoteInput } from './note';
import { lineVerdict, type Spoiler } from './verdict';
import type { QualityIssue } from '../../../shared/schemas/analysis';

/** A note input whose verdict is decided by verdict.ts from the same values, as the listener does. */
function input(over: Partial<Omit<NoteInput, 'verdict'>> = {}, issues: QualityIssue[] = [], spoilt: Spoiler[] = [], quality = 0.9): NoteInput {
  const base: Omit<NoteInput, 'verdict'> = {
    labels: [],
    grade: 'good',
    score: 0.62,
    quality_score: quality,
    prosody: { pace_vs_speaker: 1, energy_vs_speaker_db: 0, pitch_range_vs_speaker_st: 0, hesitations: 0, longest_pause: 0 },
    emphasis: [],
    restarts: [],
    ending_drop_db: null,
    ...over,
  };
  const verdict = lineVerdict({ spoilers: spoilt, quality: { score: quality, issues }, labels: base.labels, grade: base.grade, restarts: base.restarts.length });
  return { ...base, verdict };
}

describe('editor note', () => {
  it('an unusable line says so first, with every reason', () => {
    const spoilt = [
      { text: 'poor signal quality (score 0.23)', severity: 0.77 },
      { text: "overlaps S2's speech for 1.1 s", severity: 0.4 },
    ];
    expect(editorNote(input({}, [], spoilt, 0.23))).toBe("Unusable: poor signal quality (score 0.23); overlaps S2's speech for 1.1 s; use another take.");
  });

  it('a severe signal issue leads, with its evidence', () => {
    const issues = [{ type: 'off_mic', severity: 0.55, evidence: 'direct-to-reverberant −6 dB', source: 'measured' as const }];
    expect(editorNote(input({ labels: ['rushed'] }, issues))).toBe('Off mic (direct-to-reverberant −6 dB); repair it or use another take.');
  });

  it('names the most pressing label with its value and what to do, then the others', () => {
    const note = editorNote(input({ labels: ['rushed', 'flat'], prosody: { ...input().prosody, pace_vs_speaker: 1.32, pitch_range_vs_speaker_st: -4 } }));
    expect(note).toBe("Rushed: 32% faster than this speaker's usual pace — consider a slower take; also flat.");
    expect(editorNote(input({ labels: ['hesitant'], grade: 'hesitant', prosody: { ...input().prosody, hesitations: 3, longest_pause: 0.9 } }))).toBe(
      'Hesitant: 3 hesitations, longest pause 0.9 s — tighten the pauses or pick another take.',
    );
    expect(editorNote(input({ labels: ['quiet'], grade: 'weak', score: 0.4, prosody: { ...input().prosody, energy_vs_speaker_db: -7 } }))).toBe(
      'Weak delivery (0.40) for this speaker; consider another take; also quiet.',
    );
  });

  it('a poor signal without a named issue is never "usable as it is"', () => {
    expect(editorNote(input({}, [], [], 0.42))).toBe('Poor signal (quality score 0.42); listen to it before using it.');
    expect(editorNote(input({ grade: 'great', score: 0.8 }, [], [], 0.42))).not.toMatch(/usable as it is|a good select/);
  });

  it('a fixable line: the fix, and a false start to trim', () => {
    expect(editorNote(input({ restarts: [{ first: 0, repeat: 1, words: 'I' }] }))).toBe('Restarts at “I”; trim the false start.');
    expect(editorNote(input({ labels: ['quiet'], restarts: [{ first: 0, repeat: 1, words: 'I' }], prosody: { ...input().prosody, energy_vs_speaker_db: -7 } }))).toBe(
      "Quiet: 7 dB under the speaker's usual level — raise its gain; trim the false start at “I”.",
    );
  });

  it('a usable line: emphasis, or the grade', () => {
    const emphasis = [{ word_index: 1, word: 'never', start: 0, end: 0.3, strength: 0.6, source: 'estimate' as const }];
    expect(editorNote(input({ labels: ['emphatic'], emphasis, score: 0.8 }))).toBe('Emphatic on “never”; a lively take (delivery 0.80).');
    expect(editorNote(input({ grade: 'great', score: 0.8 }))).toBe('Strong, lively take (delivery 0.80); a good select.');
    expect(editorNote(input())).toBe('Even delivery (0.62); usable as it is.');
  });

  it('recommending and advising-against phrases never meet in one note', () => {
    const notes = [
      editorNote(input({}, [], [{ text: 'x', severity: 1 }], 0.1)),
      editorNote(input({}, [{ type: 'hum', severity: 0.5, evidence: 'e', source: 'measured' }])),
      editorNote(input({ labels: ['mumbled'], grade: 'weak' })),
      editorNote(input({}, [], [], 0.4)),
      editorNote(input({ grade: 'great' })),
      editorNote(input()),
    ];
    for (const note of notes) expect(NOTE_RECOMMENDS.some((p) => note.includes(p)) && NOTE_ADVISES_AGAINST.some((p) => note.includes(p))).toBe(false);
    expect(notes.filter((n) => NOTE_RECOMMENDS.some((p) => n.includes(p)))).toHaveLength(2);
  });
});
