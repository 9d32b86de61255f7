import type { PaceShiftEvent } from '../../../shared/schemas/analysis';

/**
 * Pace shifts: where a speaker's articulation rate changes between neighbouring stretches of their speech.
 * At each boundary between two consecutive lines of a speaker, the stretch before is their lines going back
 * until it holds STRETCH_SECONDS of articulation, the stretch after likewise forward; the rate of each is
 * its syllables over its articulation time. A boundary is a shift when the rates differ by at least
 * MIN_CHANGE (relative); of neighbouring boundaries shifting the same way, the largest change is kept.
 * Stretches of ~8 s hold ~40 syllables, so counting noise stays well below the 25% threshold, while
 * read speech varies ~10–15% from sentence to sentence.
 */
export const STRETCH_SECONDS = 8;
export const MIN_CHANGE = 0.25;

export interface PaceLine {
  id: number;
  speaker: string;
  start: number;
  end: number;
  syllables: number;
  articulation_seconds: number;
}

interface Stretch {
  start: number;
  end: number;
  rate: number;
}

function stretch(lines: PaceLine[], from: number, step: 1 | -1): Stretch | null {
  let syllables = 0;
  let seconds = 0;
  let start = Infinity;
  let end = -Infinity;
  for (let i = from; i >= 0 && i < lines.length; i += step) {
    const l = lines[i]!;
    syllables += l.syllables;
    seconds += l.articulation_seconds;
    start = Math.min(start, l.start);
    end = Math.max(end, l.end);
    if (seconds >= STRETCH_SECONDS) return { start, end, rate: syllables / seconds };
  }
  return null;
}

export function paceShifts(lines: ReadonlyArray<PaceLine>): PaceShiftEvent[] {
  const speakers = [...new Set(lines.map((l) => l.speaker))];
  const events: PaceShiftEvent[] = [];
  for (const speaker of speakers) {
    const own = lines.filter((l) => l.speaker === speaker && l.articulation_seconds > 0).sort((a, b) => a.start - b.start);
    const candidates: PaceShiftEvent[] = [];
    for (let i = 0; i + 1 < own.length; i++) {
      const before = stretch(own, i, -1);
      const after = stretch(own, i + 1, 1);
      if (!before || !after || before.rate <= 0) continue;
      const change = after.rate / before.rate - 1;
      if (Math.abs(change) < MIN_CHANGE) continue;
      candidates.push({
        type: 'pace_shift',
        at: Math.round(own[i + 1]!.start * 1000) / 1000,
        start: Math.round(before.start * 1000) / 1000,
        end: Math.round(after.end * 1000) / 1000,
        speaker,
        change: Math.round(change * 1000) / 1000,
        direction: change > 0 ? 'faster' : 'slower',
        source: 'measured',
      });
    }
    // Neighbouring boundaries see overlapping stretches: keep the strongest of each same-direction run.
    for (const c of candidates) {
      const prev = events[events.length - 1];
      if (prev && prev.speaker === speaker && prev.direction === c.direction && c.start < prev.end) {
        if (Math.abs(c.change) > Math.abs(prev.change)) events[events.length - 1] = c;
      } else events.push(c);
    }
  }
  return events.sort((a, b) => a.at - b.at);
}
