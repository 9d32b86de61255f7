import { describe, expect, it } from 'vitest';
import { Intelligence } from '../../shared/schemas/analysis';
import { measuredLine } from '../speech/perception/testing.testutil';
import { buildIntelligence } from './document';

describe('the analysis document', () => {
  it('serves a stored line whose DNSMOS score left the 1–5 scale (runs before 1.2.0) on the scale', () => {
    const old = measuredLine(0, 'S1', 0, 4);
    old.quality.mos = { sig: 2.44, bak: 0.985, ovrl: 1.82, p808: 2.7, source: 'heard' };
    const fine = measuredLine(1, 'S1', 5, 8);
    fine.quality.mos = { sig: 3.6, bak: 4, ovrl: 3.3, p808: 4.2, source: 'heard' };
    const intel = buildIntelligence({ duration: 10, transcriptLines: 2, awaitingTranscript: false, unavailable: null, run: null, parts: {}, lines: [old, fine], lastFailure: null });
    expect(intel.segments[0]!.quality.mos).toEqual({ sig: 2.44, bak: 1, ovrl: 1.82, p808: 2.7, source: 'heard' });
    expect(intel.segments[1]).toBe(fine); // lines on the scale are served as stored
    expect(old.quality.mos.bak).toBe(0.985); // the stored line itself is not changed
    expect(() => Intelligence.parse(intel)).not.toThrow();
  });
});
