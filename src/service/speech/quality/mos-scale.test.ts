import { describe, expect, it } from 'vitest';
import { MOS_MAX, MOS_MIN, mosOnScale, onMosScale } from './mos-scale';
import { p835FromRaw } from './dnsmos-features';
import { estimatedOvrl, qualityScore } from './line-quality';

const mos = (sig: number, bak: number, ovrl: number, p808: number) => ({ sig, bak, ovrl, p808, source: 'heard' as const });

describe('the MOS scale', () => {
  it('holds every score to 1–5', () => {
    expect([MOS_MIN, MOS_MAX]).toEqual([1, 5]);
    expect(onMosScale(0.985)).toBe(1);
    expect(onMosScale(5.2)).toBe(5);
    expect(onMosScale(3.31)).toBe(3.31);
    expect(Number.isNaN(onMosScale(Number.NaN))).toBe(true);
    expect(mosOnScale(mos(2.44, 0.985, 1.82, 5.3))).toEqual(mos(2.44, 1, 1.82, 5));
    const inRange = mos(3.6, 4, 3.3, 4.25);
    expect(mosOnScale(inRange)).toBe(inRange);
  });

  it("DNSMOS's polynomial leaves the scale for a low raw output; what the service serves does not", () => {
    // The reference mapping itself (kept as it is for the reproduction) gives BAK under 1 for a raw 0.85.
    expect(p835FromRaw(3, 0.85, 3).bak).toBeLessThan(1);
    expect(mosOnScale({ ...p835FromRaw(3, 0.85, 3), p808: 2, source: 'heard' }).bak).toBe(1);
  });

  it('the quality score and the estimated OVRL keep the same scale', () => {
    expect(qualityScore({ snr_db: 5, issues: [] }, mos(1, 1, 0.7, 1))).toBe(0);
    const worst = estimatedOvrl({ snr_db: -40, issues: [{ type: 'reverb', severity: 1, evidence: '', source: 'measured' }] });
    expect(worst).toBe(MOS_MIN);
    expect(estimatedOvrl({ snr_db: 200, issues: [] })).toBeLessThanOrEqual(MOS_MAX);
  });
});
