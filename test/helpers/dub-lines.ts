import type { LineRecord } from '../../src/service/storage/dub-store';

/** The time the lines below were last changed. */
export const DUB_LINE_AT = '2026-11-28T09:00:00.000Z';

/** A dub line as stored, its text's words spread over it (each its share of the line but the last 10 %, a short gap before the next). */
export function dubLine(id: number, start: number, end: number, text: string, fields: Partial<LineRecord> = {}): LineRecord {
  const words = text.split(' ');
  const step = (end - start) / words.length;
  return {
    id,
    speaker: 'S1',
    start,
    end,
    originalStart: start,
    originalEnd: end,
    text,
    originalText: text,
    voice: null,
    originalVoice: null,
    words: words.map((word, i) => ({ word, start: start + i * step, end: start + (i + 0.9) * step })),
    reviewStatus: 'approved',
    history: [],
    speed: null,
    revision: 0,
    updatedAt: DUB_LINE_AT,
    ...fields,
  };
}
