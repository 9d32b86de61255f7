import { describe, expect, it } from 'vitest';
import { integratedLoudness } from '../../dsp/loudness';
import { processRecordedTake, RECORDED_PEAK_LIMIT, trimRecording } from './process';

const RATE = 48000;
const tone = (seconds: number, amplitude: number, hz = 440) => Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / RATE));
const stereo = (mono: Float32Array) => Float32Array.from({ length: mono.length * 2 }, (_, i) => mono[i >> 1]!);

describe('trimRecording', () => {
  it('drops the count-in and keeps the actor\'s timing, padding a short take with silence', () => {
    const recording = Float32Array.from({ length: 10 }, (_, i) => i + 1);
    const { samples, flags } = trimRecording(recording, 4, 1, 8);
    expect([...samples]).toEqual([5, 6, 7, 8, 9, 10, 0, 0]);
    expect(flags).toEqual(['short']);
  });

  it('cuts a take that runs past the slot with a 10 ms fade', () => {
    const { samples, flags } = trimRecording(new Float32Array(RATE).fill(0.5), RATE, 0.25, RATE / 2);
    expect(flags).toEqual(['cut']);
    expect(samples.length).toBe(RATE / 2);
    expect(samples[0]).toBe(0.5);
    expect(samples[RATE / 2 - 480 - 1]).toBe(0.5);
    expect(samples.at(-1)).toBeCloseTo(0.5 / 480 / 2, 6);
  });
});

describe('processRecordedTake', () => {
  it("matches the original line's loudness with one gain: the take is the recording after the count-in, times that gain", () => {
    const recording = new Float32Array([...tone(0.5, 0.3, 1000), ...tone(2, 0.05)]);
    const original = stereo(tone(2, 0.2));
    const take = processRecordedTake({ samples: recording, sampleRate: RATE, preRoll: 0.5, slotFrames: 2 * RATE, reference: original, channels: 2 });
    expect(take.flags).toEqual([]);
    expect(take.resultLufs!).toBeCloseTo(integratedLoudness(original, 2, RATE), 1);
    expect(take.gainDb).toBeCloseTo(20 * Math.log10(0.2 / 0.05), 1);
    const gain = 10 ** (take.gainDb / 20);
    const expected = stereo(recording.subarray(RATE / 2)).map((x) => x * gain);
    expect(take.samples).toEqual(expected);
  });

  it('keeps peaks under −0.1 dBFS, and uses −23 LUFS when the original line is silent', () => {
    const loud = processRecordedTake({ samples: tone(1, 0.5), sampleRate: RATE, preRoll: 0, slotFrames: RATE, reference: tone(1, 0.99), channels: 1 });
    expect(Math.max(...loud.samples.map(Math.abs))).toBeLessThanOrEqual(RECORDED_PEAK_LIMIT);
    const unmatched = processRecordedTake({ samples: tone(1, 0.1), sampleRate: RATE, preRoll: 0, slotFrames: RATE, reference: new Float32Array(RATE), channels: 1 });
    expect(unmatched.flags).toEqual(['no_reference_loudness']);
    expect(unmatched.resultLufs!).toBeCloseTo(-23, 1);
  });
});
