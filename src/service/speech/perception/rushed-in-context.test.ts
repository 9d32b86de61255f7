/**
 * A rushed sentence among a reader's untouched ones, as the service meets it (in-context.testutil.ts): the
 * amateur reader's sentences from the test half of ../shared/audio/asr (bench/lib/halves.ts; no setting of
 * the pace measure was chosen on them), one played 1.35× as fast with the pitch kept, the whole reading
 * transcribed and analysed. The sped sentence's lines read `rushed`; no untouched sentence does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { pocketSphinxAvailable } from '../recognition/pocketsphinx-recognizer';
import { analyseReading, readingTable, type ReadingLine } from './in-context.testutil';

const TEMPO = 1.35;
const RUSHED = 'amateur_LJ003-0008';
const UNTOUCHED = ['LJ001-0010', 'LJ001-0049', 'LJ001-0092', 'LJ001-0143', 'LJ001-0163', 'LJ002-0073', 'LJ003-0012'].map((n) => `amateur_${n}`);

describe.skipIf(!pocketSphinxAvailable().ok)('a rushed sentence among untouched ones (held-out reader)', { timeout: 900_000 }, () => {
  let lines: ReadingLine[] = [];

  beforeAll(async () => {
    const sentences = [...UNTOUCHED.slice(0, 4).map((name) => ({ name, tempo: 1 })), { name: RUSHED, tempo: TEMPO }, ...UNTOUCHED.slice(4).map((name) => ({ name, tempo: 1 }))];
    lines = await analyseReading(tempDir('takeline-rushed-'), sentences);
    readingTable(lines);
  }, 900_000);

  it(`reads the sentence played ${TEMPO}× as fast rushed, on each of its lines`, () => {
    const sped = lines.filter((l) => l.tempo === TEMPO && l.measure.articulation_seconds >= 1);
    expect(sped.length).toBeGreaterThan(0);
    for (const l of sped) {
      expect(l.segment.prosody.pace_vs_speaker!).toBeGreaterThanOrEqual(1.2);
      expect(l.segment.perception!.delivery).toContain('rushed');
    }
  });

  it('reads no untouched sentence rushed', () => {
    const untouched = lines.filter((l) => l.tempo === 1);
    expect(new Set(untouched.map((l) => l.sentence)).size).toBe(UNTOUCHED.length);
    // A sentence the recognizer split reads as the whole it is: its lines' pace weighted by articulation time
    // (one line of it may be read faster than usual: LJ001-0092's short tail is, by its own syllables).
    for (const name of UNTOUCHED) {
      const own = untouched.filter((l) => l.sentence === name && l.segment.prosody.pace_vs_speaker !== null);
      const seconds = own.reduce((s, l) => s + l.measure.articulation_seconds, 0);
      const pace = Math.exp(own.reduce((s, l) => s + Math.log(l.segment.prosody.pace_vs_speaker!) * l.measure.articulation_seconds, 0) / seconds);
      expect(pace, name).toBeLessThan(1.2);
    }
  });
});
