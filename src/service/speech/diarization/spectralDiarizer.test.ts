import { describe, expect, it } from 'vitest';
import { diarizationError } from '../scoring/der';
import { SpectralDiarizer } from './spectralDiarizer';
import { alternate, synthesize, VOICE_A, VOICE_B } from './synthetic.testutil';

describe('SpectralDiarizer on constructed voices', () => {
  const { pcm, truth } = alternate(
    [4, 3, 5, 3, 4, 3].map((seconds, i) => ({ voice: i % 2 ? VOICE_B : VOICE_A, seconds })),
    [VOICE_A, VOICE_B],
  );
  const duration = pcm.length / 16000;

  it('finds two speakers alternating, with change points within 0.3 s', async () => {
    const { turns, profiles } = await new SpectralDiarizer().diarize(pcm, [{ start: 0, end: duration }]);
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set(['S1', 'S2']));
    expect(turns[0]!.speaker).toBe('S1');
    expect(Object.keys(profiles).sort()).toEqual(['S1', 'S2']);
    const changes = turns.slice(1).map((t) => t.start);
    const trueChanges = truth.slice(1).map((t) => t.start);
    expect(changes).toHaveLength(trueChanges.length);
    changes.forEach((c, i) => expect(Math.abs(c - trueChanges[i]!)).toBeLessThan(0.3));
    const reference = truth.map((t) => ({ start: t.start, end: t.end, speaker: `v${t.voice}` }));
    expect(diarizationError(reference, turns, { collar: 0.25 }).der).toBeLessThan(0.05);
  });

  it('keeps turns inside the speech spans it is given', async () => {
    const speech = [
      { start: 1, end: 6 },
      { start: 8, end: 19 },
    ];
    const { turns } = await new SpectralDiarizer().diarize(pcm, speech);
    for (const t of turns)
      expect(speech.some((s) => t.start >= s.start - 1e-9 && t.end <= s.end + 1e-9)).toBe(true);
  });

  it('honours maxSpeakers and minSpeakers', async () => {
    const one = await new SpectralDiarizer().diarize(pcm, [{ start: 0, end: duration }], { maxSpeakers: 1 });
    expect(new Set(one.turns.map((t) => t.speaker))).toEqual(new Set(['S1']));
    const single = synthesize(VOICE_A, 12, 7);
    const forced = await new SpectralDiarizer().diarize(single, [{ start: 0, end: 12 }], { minSpeakers: 2 });
    expect(new Set(forced.turns.map((t) => t.speaker)).size).toBe(2);
  });

  it('gives one speaker for one voice, and nothing for no speech', async () => {
    const single = synthesize(VOICE_B, 15, 3);
    const { turns } = await new SpectralDiarizer().diarize(single, [{ start: 0, end: 15 }]);
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set(['S1']));
    expect(await new SpectralDiarizer().diarize(single, [])).toEqual({ turns: [], profiles: {} });
  });
});
