import { describe, expect, it } from 'vitest';
import {
  AudienceEvent as AudienceEventSchema,
  MusicSpan as MusicSpanSchema,
} from '../../../shared/schemas/analysis';
import { frameLevels } from '../../dsp/levels';
import { rng } from '../diarization/synthetic.testutil';
import { detectAudienceEvents, isDuringSpeech } from './audience';
import { AMBIENCE_CLASSES, EVENT_CLASSES } from './classes';
import { fakeTags, setScore } from './tags.testutil';

const LABELS = ['Speech', ...new Set([...Object.values(EVENT_CLASSES).flat(), ...AMBIENCE_CLASSES])];
const SR = 16_000;

describe('detectAudienceEvents (hand-made scores)', () => {
  it('turns a run of applause patches into one event on the patch cells, with hysteresis', () => {
    const tags = fakeTags(40, LABELS);
    setScore(tags, 'Applause', 10, 10, 0.05); // reached through the exit threshold
    setScore(tags, 'Applause', 11, 16, 0.9);
    setScore(tags, 'Applause', 17, 17, 0.005); // below exit: ends the run
    const { events } = detectAudienceEvents(tags, [], []);
    expect(events).toHaveLength(1);
    const e = events[0]!;
    expect(AudienceEventSchema.parse(e)).toEqual(e);
    expect(e.type).toBe('applause');
    // Patch p stands for p·0.48 + 0.4875 ± 0.24 s.
    expect(e.start).toBeCloseTo(10 * 0.48 + 0.2475, 2);
    expect(e.end).toBeCloseTo(16 * 0.48 + 0.7275, 2);
    expect(e.confidence).toBeCloseTo(0.9, 3);
    expect(e.sources).toEqual(['heard']);
    expect(e.speaker).toBeNull();
    expect(e.during_speech).toBe(false);
  });

  it('ignores runs that never reach the enter threshold, joins close runs and drops short events', () => {
    const tags = fakeTags(60, LABELS);
    setScore(tags, 'Laughter', 2, 6, 0.08); // never reaches enter (0.1)
    setScore(tags, 'Clapping', 10, 13, 0.5);
    setScore(tags, 'Applause', 15, 18, 0.5); // one patch gap (0.48 s) → one applause event
    setScore(tags, 'Cheering', 30, 30, 0.9); // one patch: 0.48 s < 1 s minimum
    const { events } = detectAudienceEvents(tags, [], []);
    expect(events.map((e) => e.type)).toEqual(['applause']);
    expect(events[0]!.end - events[0]!.start).toBeCloseTo(9 * 0.48, 1);
  });

  it('names who had the floor and whether the event fell during speech', () => {
    const tags = fakeTags(60, LABELS);
    setScore(tags, 'Applause', 10, 15, 0.9); // ≈5.0–7.9 s
    setScore(tags, 'Laughter', 40, 44, 0.6); // ≈19.4–21.8 s
    const lines = [
      { start: 0.5, end: 4.5, speaker: 'S1' },
      { start: 6.5, end: 12, speaker: 'S2' },
      { start: 15, end: 19, speaker: 'S1' },
      // The recognizer wrote the laugh as a line of its own: it is the event, not speech under it.
      { start: 19.6, end: 21.5, speaker: 'S2' },
    ];
    const { events } = detectAudienceEvents(tags, lines, lines);
    const applause = events.find((e) => e.type === 'applause')!;
    expect(applause.speaker).toBe('S1'); // the last line before it started
    expect(applause.during_speech).toBe(true); // S2 starts 1.4 s before it ends
    const laughter = events.find((e) => e.type === 'laughter')!;
    expect(laughter.speaker).toBe('S1');
    expect(laughter.during_speech).toBe(false);
  });

  it('labels music by its most specific class and reports it in music[] as well', () => {
    const tags = fakeTags(40, LABELS);
    setScore(tags, 'Music', 5, 20, 0.95);
    setScore(tags, 'Singing', 5, 20, 0.4);
    const { events, music } = detectAudienceEvents(
      tags,
      [{ start: 8, end: 12 }],
      [{ start: 8, end: 12, speaker: 'S1' }],
    );
    expect(events.map((e) => e.type)).toEqual(['music']);
    expect(music).toHaveLength(1);
    expect(MusicSpanSchema.parse(music[0])).toEqual(music[0]);
    expect(music[0]).toMatchObject({
      label: 'Singing',
      during_speech: true,
      source: 'heard',
      start: events[0]!.start,
      end: events[0]!.end,
    });
    expect(music[0]!.score).toBeCloseTo(0.95, 3);
  });

  it('moves boundaries onto energy steps outside speech and says the level backs the event', () => {
    // 20 s of room tone, a loud noise burst 6.13–10.37 s; the tagger's patches only roughly agree.
    const r = rng(5);
    const pcm = Float32Array.from({ length: 20 * SR }, () => (r() * 2 - 1) * 0.001);
    for (let i = Math.round(6.13 * SR); i < Math.round(10.37 * SR); i++) pcm[i]! += (r() * 2 - 1) * 0.2;
    const tags = fakeTags(41, LABELS);
    setScore(tags, 'Applause', 12, 21, 0.9); // cells 6.01–10.81 s
    const { events } = detectAudienceEvents(tags, [], [], { levels: frameLevels(pcm, SR), duration: 20 });
    expect(events).toHaveLength(1);
    expect(Math.abs(events[0]!.start - 6.13)).toBeLessThan(0.03);
    expect(Math.abs(events[0]!.end - 10.37)).toBeLessThan(0.03);
    expect(events[0]!.sources).toEqual(['heard', 'measured']);
  });

  it('keeps the tagger’s boundary where speech surrounds it', () => {
    const r = rng(6);
    const pcm = Float32Array.from({ length: 20 * SR }, () => (r() * 2 - 1) * 0.001);
    for (let i = Math.round(6.13 * SR); i < Math.round(10.37 * SR); i++) pcm[i]! += (r() * 2 - 1) * 0.2;
    const tags = fakeTags(41, LABELS);
    setScore(tags, 'Applause', 12, 21, 0.9);
    const talk = [{ start: 4, end: 7 }];
    const { events } = detectAudienceEvents(tags, talk, [{ ...talk[0]!, speaker: 'S1' }], {
      levels: frameLevels(pcm, SR),
      duration: 20,
    });
    expect(events[0]!.start).toBeCloseTo(12 * 0.48 + 0.2475, 2); // onset under speech: not searched
    expect(Math.abs(events[0]!.end - 10.37)).toBeLessThan(0.03); // offset in the clear: refined
  });

  it('finds nothing in silence', () => {
    const tags = setScore(fakeTags(30, LABELS), 'Silence', 0, 29, 1);
    const out = detectAudienceEvents(tags, [], []);
    expect(out.events).toEqual([]);
    expect(out.music).toEqual([]);
    expect(out.ambience_profile).toEqual([
      { start: 0, end: expect.closeTo(29 * 0.48 + 0.975, 1), label: 'Silence', score: 1 },
    ]);
  });
});

describe('isDuringSpeech', () => {
  it('needs half a second of speech, or a quarter of a shorter event', () => {
    expect(isDuringSpeech({ start: 0, end: 4 }, [{ start: 3.6, end: 6 }])).toBe(false);
    expect(isDuringSpeech({ start: 0, end: 4 }, [{ start: 3.5, end: 6 }])).toBe(true);
    expect(isDuringSpeech({ start: 0, end: 1 }, [{ start: 0.8, end: 3 }])).toBe(false);
    expect(isDuringSpeech({ start: 0, end: 1 }, [{ start: 0.75, end: 3 }])).toBe(true);
  });
});
