import fs from 'node:fs';
import path from 'node:path';
import type { ServiceProcess } from './service';
import { encodeWav } from '../../src/service/media/wav';
import { soundingSpan } from '../../src/service/dsp/trim-silence';

/** Sentences the "actors" read (the service's voices as two readers); none is in the models' test material. */
export const GUIDE_SENTENCES = [
  'The harbour lights were already burning when we came down the hill.',
  'Nobody told me the train would leave an hour early.',
  'She folded the letter twice and put it back in the drawer.',
  'We can still make it if you stop arguing with the map.',
  'The old clock in the hall has not worked for years.',
  'Bring the blue boxes first and leave the rest by the door.',
  'I thought you said the meeting was on Thursday morning.',
  'His brother sold the farm and moved to the coast.',
  'Keep your voice down, the children are finally asleep.',
  'Every window on the north side was broken in the storm.',
  'They found the missing keys under the kitchen table.',
  'Turn left at the bakery and the station is right in front of you.',
  'The doctor said the fever should be gone by tomorrow.',
  'We planted apple trees along the edge of the garden.',
  'Could you read the last paragraph one more time, slowly?',
  'The river rose so fast that the bridge was closed by noon.',
  'My grandmother kept every photograph in a green tin box.',
  'If the light turns red again, we will be late for dinner.',
  'The captain ordered everyone back to the ship before dark.',
  'Please write your name clearly at the top of the page.',
];

/**
 * Held out: sentences and readers the guide was not tuned on (flite's Scottish male `awb` and SVOX Pico's
 * British female `en-GB`, other speakers than the tuning half's), to check its figures on.
 */
export const HELD_OUT_SENTENCES = [
  'The ferry was cancelled, so we waited in the cafe until the rain stopped.',
  'He never answers the phone before ten o\'clock on a Sunday.',
  'Put the kettle on and tell me everything that happened at the wedding.',
  'Our neighbours painted their fence bright yellow without asking anyone.',
  'If you find the receipt, we can still return the broken lamp.',
  'The museum closes early on the first Monday of every month.',
  'She learned to sail on a lake surrounded by pine forests.',
  'Somebody left the gate open and the sheep wandered into the road.',
  'Wait here while I fetch the car from the multi-storey park.',
  'The soup needs more salt, but the bread is absolutely perfect.',
  'Nine of the ten runners finished the race despite the heat.',
  'Ask the porter to carry the trunk up to the second floor.',
  'My uncle repairs old radios in a shed behind his cottage.',
  'The headlines this morning were all about the flooded valley.',
  'Do you remember where we parked when we arrived last night?',
  'The choir practised the same hymn until it sounded right.',
  'A thin layer of frost covered the windscreen at dawn.',
  'They argued about money for the whole drive to the airport.',
  'Please switch off your phones before the film begins.',
  'The lighthouse keeper wrote a letter to his daughter every week.',
];

/** The two readers of the original lines, and the speeds they read at in turn (so their timing is their own). */
export const GUIDE_READERS = ['flite/rms', 'svox-pico/en-US'] as const;
export const HELD_OUT_READERS = ['flite/awb', 'svox-pico/en-GB'] as const;

/** The material's two halves: what the guide was tuned on, and what was held out. */
export const GUIDE_SETS = {
  tuning: { sentences: GUIDE_SENTENCES, readers: GUIDE_READERS },
  'held-out': { sentences: HELD_OUT_SENTENCES, readers: HELD_OUT_READERS },
} as const;
export type GuideSet = keyof typeof GUIDE_SETS;
const READER_SPEEDS = [0.85, 1.1, 1, 0.9, 1.15];
const RATE = 24000;
const GAP_SECONDS = 0.8;

/** `POST /v1/audio/speech` as 24 kHz mono float samples. */
export async function speak(svc: ServiceProcess, voiceRef: string, text: string, speed = 1): Promise<Float32Array> {
  const [model, voice] = voiceRef.split('/');
  const res = await fetch(`${svc.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, voice, input: text, response_format: 'pcm', speed }),
  });
  if (res.status !== 200) throw new Error(`speech ${voiceRef}: ${res.status} ${await res.text()}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const out = new Float32Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(2 * i) / 32768;
  return out;
}

export interface GuideMaterial {
  file: string;
  rate: number;
  lines: Array<{ speaker: string; start: number; end: number; text: string }>;
}

/**
 * A dub of `count` lines read by the two readers in turn (speaker S1 and S2), each at its own speed, their
 * sounding part only, with 0.8 s of silence between lines: 24 kHz mono 16-bit.
 */
export async function guideMaterial(svc: ServiceProcess, dir: string, count = GUIDE_SENTENCES.length, set: GuideSet = 'tuning'): Promise<GuideMaterial> {
  const { sentences, readers } = GUIDE_SETS[set];
  const pieces: Float32Array[] = [];
  const lines: GuideMaterial['lines'] = [];
  let cursor = GAP_SECONDS;
  pieces.push(new Float32Array(Math.round(GAP_SECONDS * RATE)));
  for (let i = 0; i < count; i++) {
    const text = sentences[i % sentences.length]!;
    const reading = await speak(svc, readers[i % 2]!, text, READER_SPEEDS[i % READER_SPEEDS.length]);
    const span = soundingSpan(reading, RATE);
    const sounding = reading.slice(span.start, span.end);
    lines.push({ speaker: `S${(i % 2) + 1}`, start: cursor, end: cursor + sounding.length / RATE, text });
    pieces.push(sounding, new Float32Array(Math.round(GAP_SECONDS * RATE)));
    cursor += (sounding.length + Math.round(GAP_SECONDS * RATE)) / RATE;
  }
  const all = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    all.set(p, at);
    at += p.length;
  }
  const file = path.join(dir, 'guide-material.wav');
  fs.writeFileSync(file, encodeWav(all, { sampleRate: RATE, channels: 1, sampleFormat: 's16' }));
  return { file, rate: RATE, lines };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Median |onset difference| (seconds) over words paired by index, in lines whose word counts agree. */
export function medianOnsetError(pairs: Array<{ original: Array<{ start: number }>; revoiced: Array<{ start: number }> }>): { median: number; words: number } {
  const errors: number[] = [];
  for (const { original, revoiced } of pairs) {
    if (original.length !== revoiced.length) continue;
    original.forEach((w, i) => errors.push(Math.abs(w.start - revoiced[i]!.start)));
  }
  return { median: median(errors), words: errors.length };
}

export { median };
