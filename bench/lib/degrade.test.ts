import { describe, expect, it } from 'vitest';
import { RATE } from '../../src/service/speech/quality/signals.testutil';
import { degradationFromArgs, degraded, describeDegradation } from './degrade';

function tone(hz: number, seconds = 1): Float32Array {
  return Float32Array.from({ length: RATE * seconds }, (_, i) => Math.sin((2 * Math.PI * hz * i) / RATE));
}

/** Power of the second half (the filters have settled), dB relative to a full-scale sine's. */
function powerDb(x: Float32Array): number {
  let sum = 0;
  for (let i = x.length / 2; i < x.length; i++) sum += x[i]! * x[i]!;
  return 10 * Math.log10(sum / (x.length / 2) / 0.5);
}

describe('a telephone line', () => {
  it('passes the voice band and takes away what lies outside 300–3400 Hz', async () => {
    const line = { telephone: true };
    expect(powerDb(await degraded(tone(1000), line, 0))).toBeGreaterThan(-0.5);
    expect(powerDb(await degraded(tone(2500), line, 0))).toBeGreaterThan(-0.5);
    // 8th-order low-pass at 3400 Hz: about 39 dB down at 6 kHz; 4th-order high-pass at 300 Hz: 38 dB at 100 Hz.
    expect(powerDb(await degraded(tone(6000), line, 0))).toBeLessThan(-35);
    expect(powerDb(await degraded(tone(100), line, 0))).toBeLessThan(-35);
    expect(describeDegradation(line)).toBe('telephone band 300–3400 Hz');
  });

  it('leaves a clip as it is when asked for nothing', async () => {
    const clip = tone(440);
    expect(await degraded(clip, {}, 0)).toBe(clip);
  });
});

describe('lossy compression', () => {
  it('gives back the clip at its length and level after each format, the voice band through', async () => {
    const clip = tone(1000, 2).map((x) => 0.5 * x);
    for (const format of ['mp3', 'aac', 'opus'] as const) {
      const codec = { codec: { format, kbps: 32 } };
      const out = await degraded(clip, codec, 0);
      // The length may keep part of the encoder's priming (aac: 768 samples here), never more than a frame.
      expect(Math.abs(out.length - clip.length)).toBeLessThan(1200);
      expect(Math.abs(powerDb(out) - powerDb(clip))).toBeLessThan(1);
      expect(out).not.toBe(clip);
    }
    expect(describeDegradation({ codec: { format: 'opus', kbps: 16 } })).toBe('opus at 16 kb/s');
  });
});

describe('degradationFromArgs', () => {
  it('reads the flags a bench was given, and nothing when none', () => {
    expect(degradationFromArgs(['node', 'run.ts', '--every', '2'])).toBeUndefined();
    expect(degradationFromArgs(['--rt60', '0.3', '--drr', '6'])).toEqual({ rt60: 0.3, drrDb: 6, telephone: false });
    expect(degradationFromArgs(['--room', 'ir_smartphone_mic_mono.flac', '--noise', 'hum.flac', '--snr', '10', '--telephone'])).toEqual({
      room: 'ir_smartphone_mic_mono.flac',
      noise: 'hum.flac',
      snrDb: 10,
      telephone: true,
    });
  });

  it('refuses a value that is not a number, and noise without its level', () => {
    expect(() => degradationFromArgs(['--rt60', 'long'])).toThrow('--rt60 needs a number, not long');
    expect(() => degradationFromArgs(['--noise', 'hum.flac'])).toThrow('--noise needs --snr');
    expect(() => degradationFromArgs(['--codec', 'wma:32'])).toThrow('--codec needs <mp3|aac|opus>:<kbps>, not wma:32');
    expect(() => degradationFromArgs(['--codec', 'mp3'])).toThrow('not mp3');
  });

  it('reads a codec and its bit rate', () => {
    expect(degradationFromArgs(['--codec', 'aac:48'])).toEqual({ codec: { format: 'aac', kbps: 48 }, telephone: false });
  });
});
