/**
 * The listener on real lines transformed in a known direction (transformations.testutil.ts), through the
 * whole analysis run with the real measures: the 1.3× time-compressed copy reads `rushed` with a higher
 * `pace_vs_speaker`, the flattened copy `flat`, the copy with pauses and a filler `hesitant`, the attenuated
 * and low-passed copy lower `energy_vs_speaker_db` and `engagement`; the original reads none of these. The
 * rules' thresholds were set looking at the tuning line only; the held-out lines (another LJSpeech line, and
 * two lines of a second reader on a desk microphone) are reported as they come.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisSegment } from '../../../shared/schemas/analysis';
import { tempDir } from '../../../../test/helpers/temp';
import { resolveMediaTools } from '../../media/tools';
import { resolvePocketSphinxModel } from '../recognition/pocketsphinx/model';
import { runAnalysis } from '../../analysis/run-analysis';
import { createToolkit } from '../../analysis/toolkit';
import type { AnalysisRequest } from '../../analysis/protocol';
import { buildTransformedRecording, VARIANTS, type Variant } from './transformations.testutil';

/** Two readers: each recording holds one reader's context lines and the transformed copies of their targets. */
const READERS = [
  {
    reader: 'LJSpeech',
    context: ['ljspeech_LJ001-0001', 'ljspeech_LJ001-0003', 'ljspeech_LJ001-0004', 'ljspeech_LJ001-0006', 'ljspeech_LJ001-0007', 'ljspeech_LJ001-0010'],
    targets: [
      ['tuning', 'ljspeech_LJ001-0015'],
      ['held out', 'ljspeech_LJ001-0021'],
    ],
    fillerHz: 190,
  },
  {
    reader: 'amateur (desk microphone)',
    context: ['amateur_LJ001-0001', 'amateur_LJ001-0010', 'amateur_LJ001-0049', 'amateur_LJ001-0058', 'amateur_LJ001-0143', 'amateur_LJ001-0159'],
    targets: [
      ['held out', 'amateur_LJ001-0066'],
      ['held out', 'amateur_LJ001-0152'],
    ],
    fillerHz: 120,
  },
] as const;

describe.each(READERS)('listener on transformed real lines: $reader', { timeout: 300_000 }, ({ context, targets, fillerHz }) => {
  const lines = new Map<string, AnalysisSegment>();
  let kit: ReturnType<typeof createToolkit> | null = null;

  beforeAll(async () => {
    const dir = tempDir('takeline-transformed-');
    const built = await buildTransformedRecording(
      dir,
      [...context],
      targets.map(([, t]) => t),
      fillerHz,
    );
    const request: AnalysisRequest = {
      file: built.file,
      tools: resolveMediaTools(),
      modelsDir: null,
      dictionary: resolvePocketSphinxModel().dict,
      lines: built.lines,
      parts: {},
      doneLines: [],
    };
    kit = createToolkit(request);
    const byId = new Map<number, AnalysisSegment>();
    await runAnalysis(request, kit, (m) => {
      if (m.type === 'lines') for (const l of m.lines) byId.set(l.id, l);
    });
    for (const [key, id] of built.ids) lines.set(key, byId.get(id)!);
    const table = [...built.ids.keys()].map((key) => {
      const s = lines.get(key)!;
      return {
        line: key.replace(/^(ljspeech|amateur)_/, ''),
        pace_vs: s.prosody.pace_vs_speaker,
        range_vs_st: s.prosody.pitch_range_vs_speaker_st,
        energy_vs_db: s.prosody.energy_vs_speaker_db,
        hesitations: s.prosody.hesitations,
        engagement: s.perception!.engagement,
        labels: s.perception!.delivery.join(','),
        grade: s.delivery!.label,
      };
    });
    console.table(table);
  });
  afterAll(async () => kit?.close());

  const get = (target: string, variant: Variant) => lines.get(`${target}:${variant}`)!;

  describe.each(targets.map(([set, target]) => ({ set, target })))('$set line $target', ({ target }) => {
    it('every copy was listened to, as an estimate', () => {
      for (const v of VARIANTS) expect(get(target, v).perception).toMatchObject({ source: 'estimate' });
    });

    it('the original reads none of the transformations', () => {
      const labels = get(target, 'original').perception!.delivery;
      for (const l of ['rushed', 'flat', 'hesitant', 'quiet', 'mumbled'] as const) expect(labels).not.toContain(l);
    });

    it('time-compressed 1.3×: rushed, and a higher pace_vs_speaker', () => {
      const o = get(target, 'original').prosody.pace_vs_speaker!;
      const r = get(target, 'rushed');
      expect(r.perception!.delivery).toContain('rushed');
      expect(r.prosody.pace_vs_speaker!).toBeGreaterThan(o * 1.15);
    });

    it('pitch movement flattened: flat, with a narrower range than the original', () => {
      const f = get(target, 'flat');
      expect(f.perception!.delivery).toContain('flat');
      expect(f.prosody.pitch_range_vs_speaker_st!).toBeLessThan(get(target, 'original').prosody.pitch_range_vs_speaker_st! - 3);
    });

    it('long pauses and a filler inserted: hesitant', () => {
      const h = get(target, 'hesitant');
      expect(h.perception!.delivery).toContain('hesitant');
      expect(h.delivery!.label).toBe('hesitant');
      expect(h.prosody.hesitations).toBeGreaterThanOrEqual(get(target, 'original').prosody.hesitations + 2);
      expect(h.prosody.pauses.some((p) => p.filled)).toBe(true);
    });

    it('attenuated and low-passed: lower energy and engagement', () => {
      const o = get(target, 'original');
      const q = get(target, 'quiet');
      expect(q.prosody.energy_vs_speaker_db!).toBeLessThan(o.prosody.energy_vs_speaker_db! - 8);
      expect(q.perception!.engagement).toBeLessThan(o.perception!.engagement - 0.15);
      expect(q.perception!.delivery).toContain('quiet');
    });
  });
});
