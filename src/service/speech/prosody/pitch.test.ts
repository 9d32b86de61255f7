import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audioDir } from '../../../../test/helpers/paths';
import { concat, glide, pulseTrain, readWav16, tone, whiteNoise } from '../../../../test/helpers/signals';
import { pitchTrack } from './pitch';

function voicedValues(f0: Float32Array): number[] {
  return Array.from(f0).filter((f) => f > 0);
}

describe('pitchTrack on constructed signals', () => {
  it.each([
    [100, 16000],
    [220, 16000],
    [440, 16000],
    [150, 8000],
    [123.4, 44100],
    [310, 48000],
  ])('finds a %s Hz tone at %s Hz sampling in every frame', (f, rate) => {
    const track = pitchTrack(tone(f, 0.5, rate), rate);
    expect(track.f0.length).toBeGreaterThan(40);
    for (const v of track.f0) expect(Math.abs(v - f) / f).toBeLessThan(5e-4);
    for (const s of track.strength) expect(s).toBeGreaterThan(0.99);
  });

  it('finds the period of a pulse train, not its strong harmonics', () => {
    // 100 Hz pulses exciting a 500 Hz resonance: the 5th harmonic dominates the spectrum.
    const { pcm } = pulseTrain(new Array(60).fill(0.01), 16000);
    const track = pitchTrack(pcm, 16000);
    const voiced = voicedValues(track.f0);
    expect(voiced.length).toBeGreaterThan(track.f0.length * 0.8);
    for (const v of voiced) expect(Math.abs(v - 100)).toBeLessThan(0.1);
  });

  it('follows an octave glide', () => {
    const track = pitchTrack(glide(100, 200, 1, 16000), 16000);
    const t = (i: number) => track.start + i * track.timeStep;
    track.f0.forEach((v, i) => expect(Math.abs(v - 100 * 2 ** t(i)) / v).toBeLessThan(0.005));
  });

  it('leaves silence unvoiced and gives an empty track when shorter than a window', () => {
    const silent = pitchTrack(new Float32Array(16000), 16000);
    expect(silent.f0.length).toBe(97);
    expect(voicedValues(silent.f0)).toEqual([]);
    expect(pitchTrack(new Float32Array(500), 16000).f0.length).toBe(0);
  });

  it('leaves white noise (almost) unvoiced', () => {
    const track = pitchTrack(whiteNoise(16000, 0.1), 16000);
    expect(voicedValues(track.f0).length).toBeLessThan(track.f0.length * 0.05);
  });

  it('marks the quiet gap between two tones unvoiced', () => {
    const pcm = concat(tone(200, 0.3, 16000), new Float32Array(4800), tone(200, 0.3, 16000));
    const track = pitchTrack(pcm, 16000);
    const at = (t: number) => track.f0[Math.round((t - track.start) / track.timeStep)]!;
    expect(at(0.15)).toBeCloseTo(200, 2);
    expect(at(0.45)).toBe(0);
    expect(at(0.75)).toBeCloseTo(200, 2);
  });

  it('takes a time step and a range', () => {
    const track = pitchTrack(tone(300, 0.5, 16000), 16000, { timeStep: 0.005, floor: 100, ceiling: 250 });
    expect(track.timeStep).toBe(0.005);
    // 300 Hz is above the ceiling: the subharmonic at 150 Hz is the best voiced reading left.
    for (const v of voicedValues(track.f0)) expect(v).toBeCloseTo(150, 1);
    expect(() => pitchTrack(tone(300, 0.5, 16000), 16000, { floor: 300, ceiling: 200 })).toThrow(/floor < ceiling/);
    expect(() => pitchTrack(tone(300, 0.5, 16000), 0)).toThrow(/sample rate/);
  });
});

describe('pitchTrack against Praat 6.3.07 (stored reference tracks)', () => {
  const dir = path.join(audioDir, 'prosody');
  const refDir = path.join(dir, 'praat_pitch_75_600Hz');
  const names = readdirSync(refDir).map((f) => f.replace(/\.pitch\.tsv$/, ''));

  it('has the reference tracks', () => expect(names.length).toBe(13));

  it.each(names)('%s: same frames, same voicing, F0 within the reference’s rounding', (name) => {
    const { pcm, rate } = readWav16(readFileSync(path.join(dir, `${name}.wav`)));
    const rows = readFileSync(path.join(refDir, `${name}.pitch.tsv`), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
    const track = pitchTrack(pcm, rate);
    expect(track.f0.length).toBe(rows.length);
    rows.forEach(([time, f0], i) => {
      expect(track.start + i * track.timeStep).toBeCloseTo(Number(time), 3);
      if (f0 === '--undefined--') expect(track.f0[i]).toBe(0);
      else expect(Math.abs(track.f0[i]! - Number(f0))).toBeLessThanOrEqual(0.0051); // printed to 0.01 Hz
    });
  });
});
