import { describe, expect, it } from 'vitest';
import {
  dbToPower,
  frameLevels,
  frameRange,
  gainToPeak,
  meanLevel,
  peakAmplitude,
  powerToDb,
  scaledCopy,
  SILENT_DB,
} from './levels';

describe('frameLevels', () => {
  it('reads a full-scale sine at −3 dBFS and digital silence at the floor', () => {
    const sr = 16_000;
    const pcm = new Float32Array(sr);
    for (let i = 0; i < sr / 2; i++) pcm[i] = Math.sin((2 * Math.PI * 1000 * i) / sr);
    const track = frameLevels(pcm, sr, 0.025, 0.01);
    expect(track.hop).toBeCloseTo(0.01);
    expect(track.db).toHaveLength(100);
    expect(track.db[10]).toBeCloseTo(-3.01, 1);
    expect(track.db[90]).toBe(SILENT_DB);
  });

  it('averages a short last frame over what it has', () => {
    const track = frameLevels(new Float32Array(250).fill(0.5), 1000, 0.1, 0.1);
    expect(track.db).toHaveLength(3);
    expect(track.db[2]).toBeCloseTo(20 * Math.log10(0.5), 5);
  });
});

describe('level helpers', () => {
  it('converts between power and dB, flooring silence', () => {
    expect(powerToDb(1)).toBe(0);
    expect(powerToDb(0)).toBe(SILENT_DB);
    expect(dbToPower(-10)).toBeCloseTo(0.1);
  });

  it('takes the power mean of levels, not the mean of decibels', () => {
    expect(meanLevel([0, SILENT_DB])).toBeCloseTo(-3.01, 2);
    expect(meanLevel([])).toBe(SILENT_DB);
  });

  it('lists the frames inside a span, or the one holding a span shorter than a frame', () => {
    const track = { hop: 0.01, frame: 0.025, db: new Float32Array(100) };
    expect(frameRange(track, 0.1, 0.2)).toEqual([10, 18]);
    expect(frameRange(track, 0.5, 0.51)).toEqual([50, 51]);
  });
});

describe('peak levelling helpers', () => {
  it('measures the peak, the gain to 0.95 and scales a copy', () => {
    const pcm = Float32Array.from([0.1, -0.5, 0.25]);
    expect(peakAmplitude(pcm)).toBe(0.5);
    expect(gainToPeak(0.5)).toBeCloseTo(1.9, 12);
    expect(gainToPeak(0)).toBe(1);
    const scaled = scaledCopy(pcm, 2);
    expect(Array.from(scaled)).toEqual(Array.from(Float32Array.from([0.2, -1, 0.5])));
    expect(pcm[1]).toBe(-0.5);
  });
});
