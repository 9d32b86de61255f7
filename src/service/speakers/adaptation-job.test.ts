import { describe, expect, it } from 'vitest';
import { denoiseNoisyLines, dereverberateLines, speakerChunks, unknownLineWords } from './adaptation-job';
import { createWpeDereverberator } from '../speech/enhancement/reverberant-speech';
import { convolve, gainForSnr, haveAudio, loadAudio, matchPower, syntheticRoom, whiteNoise } from '../speech/quality/signals.testutil';
import { SileroVad } from '../speech/vad/silero';
import { SAMPLE_RATE, type Span, type Transcript, type TranscriptSegment } from '../speech/types';

function line(id: number, words: Span[]): TranscriptSegment {
  return {
    id,
    start: words[0]!.start,
    end: words.at(-1)!.end,
    speaker: 'S1',
    text: words.map(() => 'word').join(' '),
    words: words.map((w) => ({ ...w, word: 'word', confidence: 1, speaker: 'S1' })),
    avgLogprob: -0.1,
  };
}

describe.skipIf(!haveAudio)('adaptation statistics on a noisy recording', () => {
  it('denoises the noisy lines in place, as transcription denoised them, and leaves the clean ones', async () => {
    // One reading twice: as recorded, then with white noise 10 dB under it.
    const reading = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const vad = new SileroVad();
    const speech = await vad.detect(reading).finally(() => vad.close());
    const noise = whiteNoise(reading.length, 5);
    const gain = gainForSnr(reading, noise, 10);
    const pcm = new Float32Array(2 * reading.length);
    pcm.set(reading);
    for (let i = 0; i < reading.length; i++) pcm[reading.length + i] = reading[i]! + gain * noise[i]!;
    const shift = reading.length / SAMPLE_RATE;
    const transcript: Transcript = {
      language: 'en',
      duration: pcm.length / SAMPLE_RATE,
      text: '',
      segments: [
        line(0, speech),
        line(
          1,
          speech.map((s) => ({ start: s.start + shift, end: s.end + shift })),
        ),
      ],
      speakers: ['S1'],
      engine: 'test',
    };
    const before = pcm.slice();
    const halving = { id: 'halving', denoise: async (x: Float32Array) => x.map((v) => v / 2) };
    expect(await denoiseNoisyLines(transcript, pcm, halving)).toBe(1);
    // The clean reading is untouched, the noisy one is what the denoiser made of it.
    expect(pcm.subarray(0, reading.length - SAMPLE_RATE)).toEqual(
      before.subarray(0, reading.length - SAMPLE_RATE),
    );
    const inside = Math.round((speech[0]!.start + shift + 0.5) * SAMPLE_RATE);
    expect(pcm[inside]).toBeCloseTo(before[inside]! / 2, 6);
  });
});

describe.skipIf(!haveAudio)('adaptation statistics on a reverberant recording', () => {
  it('dereverberates the reverberant line in place, as transcription dereverberated it, and leaves the dry one', async () => {
    // One reading twice: as recorded, then in a constructed room (RT60 0.6 s).
    const reading = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const wet = matchPower(convolve(reading, syntheticRoom(0.6, 0)), reading);
    const pcm = new Float32Array(2 * reading.length);
    pcm.set(reading);
    pcm.set(wet, reading.length);
    const shift = reading.length / SAMPLE_RATE;
    const whole = [{ start: 0.3, end: shift - 0.3 }];
    const transcript: Transcript = {
      language: 'en',
      duration: pcm.length / SAMPLE_RATE,
      text: '',
      segments: [line(0, whole), line(1, whole.map((s) => ({ start: s.start + shift, end: s.end + shift })))],
      speakers: ['S1'],
      engine: 'test',
    };
    const before = pcm.slice();
    expect(await dereverberateLines(transcript, pcm, createWpeDereverberator())).toBe(1);
    expect(pcm.subarray(0, reading.length)).toEqual(before.subarray(0, reading.length));
    // The wet line changed: WPE took part of its energy away.
    const energy = (x: Float32Array) => x.reduce((a, v) => a + v * v, 0);
    const from = Math.round((shift + 0.3) * SAMPLE_RATE);
    const to = Math.round((2 * shift - 0.3) * SAMPLE_RATE);
    expect(energy(pcm.subarray(from, to))).toBeLessThan(0.95 * energy(before.subarray(from, to)));
  });
});

describe('what adaptation learns from a corrected recording', () => {
  const dictionary = new Set(['the', 'press', 'of', 'in', 'rome', 'printed', 'bread']);
  const word = (w: string, start: number) => ({ word: w, start, end: start + 0.4, confidence: 0.5, speaker: 'S1' });
  const transcript: Transcript = {
    language: 'en',
    duration: 4,
    text: '',
    speakers: ['S1', 'S2'],
    engine: 'test',
    segments: [
      // Recognized: "the bread" where the reader said "the press".
      { id: 0, speaker: 'S1', start: 0, end: 0.9, text: 'the bread', words: [word('the', 0), word('bread', 0.45)], avgLogprob: -1 },
      // Corrected by the editor, with a name the dictionary lacks.
      { id: 1, speaker: 'S1', start: 1, end: 2.4, text: 'Sweynheim printed in Rome.', words: [word('Sweynheim', 1), word('printed', 1.45), word('in', 1.7), word('Rome.', 2)], avgLogprob: -1, corrected: true },
      { id: 2, speaker: 'S2', start: 3, end: 3.9, text: 'Pannartz', words: [word('Pannartz', 3)], avgLogprob: -1, corrected: true },
    ],
  };
  const pcm = new Float32Array(4 * SAMPLE_RATE);

  it('takes a corrected line’s words as supervision and says so', () => {
    const withName = new Set([...dictionary, 'sweynheim']);
    const chunks = speakerChunks(transcript, 'S1', pcm, withName);
    expect(chunks.map((c) => [c.id, c.hypothesis, c.corrected ?? false])).toEqual([
      ['s0', 'the bread', false],
      ['s1', 'sweynheim printed in rome', true],
    ]);
  });

  it('leaves out a line whose typed name has no pronunciation, and lists the names to pronounce', () => {
    expect(speakerChunks(transcript, 'S1', pcm, dictionary).map((c) => c.id)).toEqual(['s0']);
    expect(unknownLineWords(transcript, new Set(['S1']), dictionary)).toEqual(['sweynheim']);
    expect(unknownLineWords(transcript, new Set(['S1', 'S2']), dictionary)).toEqual(['sweynheim', 'pannartz']);
  });
});
