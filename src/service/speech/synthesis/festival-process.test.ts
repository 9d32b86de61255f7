import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childProcesses } from '../../../../test/helpers/proc-stat';
import { createFestivalHts, festivalHtsMissing } from './festival-hts';
import { createFestivalDiphone, festivalDiphoneMissing } from './festival-diphone';
import { speakerPitch } from '../speakers/pitch-gender';
import { FestivalProcess } from './festival-process';
import type { Voice } from './voice';
import { decodeWav } from '../../media/wav';

const VOICE = 'voice_cmu_us_slt_arctic_hts';
const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';
const installed = festivalHtsMissing(process.env) === null;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-festival-test-'));

/**
 * The WAV text2wave makes of `text` (a process per text, as the service ran it before festival was kept warm),
 * written to a file: on a pipe text2wave cannot seek back to its header, so it appends the final header to the
 * samples, which were then read as 22 loud samples at the end of every reading.
 */
function text2wave(text: string, rate = 1): Buffer {
  const out = path.join(temp, 'text2wave.wav');
  const args = ['-o', out, '-eval', `(${VOICE})`];
  if (rate !== 1) args.push('-eval', `(set! hts_engine_params (append hts_engine_params (list (list "-r" ${rate.toFixed(4)}))))`);
  execFileSync('text2wave', args, { input: `${text}\n` });
  try {
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(out);
  }
}

const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const festivals = () => childProcesses().filter((c) => c.name === 'festival' && c.state !== 'Z');
/** What festival processes of these tests left in their temp folder. */
const tempFolders = () => fs.readdirSync(temp);
const gone = async (pid: number) => {
  for (let i = 0; i < 100 && fs.existsSync(`/proc/${pid}/stat`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 20));
  return !fs.existsSync(`/proc/${pid}/stat`) || /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
};

describe.skipIf(!installed)('festival kept running (festival --pipe with the HTS voice loaded)', () => {
  let festival: FestivalProcess | null = null;
  let voice: Voice | null = null;
  afterEach(async () => {
    await festival?.close();
    await voice?.close();
    festival = voice = null;
  });

  it('writes the same bytes as text2wave, text after text and at other rates, and reads Scheme in the text as text', { timeout: 120_000 }, async () => {
    festival = new FestivalProcess({ program: 'festival', voiceFunction: VOICE, env: process.env, tempDir: temp });
    expect((await festival.speak(SENTENCE, 1)).wav.equals(text2wave(SENTENCE))).toBe(true);
    const pid = festival.pid;
    expect((await festival.speak(SENTENCE, 1.2)).wav.equals(text2wave(SENTENCE, 1.2))).toBe(true);
    // The rate is set again for each text, not left from the one before.
    expect((await festival.speak(SENTENCE, 1)).wav.equals(text2wave(SENTENCE))).toBe(true);
    const tricky = 'He typed "(quit)" and \\ then (format t "x") twice.';
    expect((await festival.speak(tricky, 1)).wav.equals(text2wave(tricky))).toBe(true);
    // One process did all of it, and it is still there.
    expect(festival.pid).toBe(pid);
    await festival.close();
    expect(await gone(pid!)).toBe(true);
    expect(tempFolders()).toEqual([]);
  });

  it('reports text it cannot speak as a SynthesisError and keeps going', { timeout: 60_000 }, async () => {
    festival = new FestivalProcess({ program: 'festival', voiceFunction: VOICE, env: process.env, tempDir: temp });
    // Nothing to say: no utterance, so no wave to write.
    await expect(festival.speak('', 1)).rejects.toThrow(/festival could not speak this text: SIOD ERROR/);
    expect((await festival.speak('Still here.', 1)).wav.length).toBeGreaterThan(10_000);
  });

  it('kills the process on an abort and starts a fresh one for the next text; nothing is left behind', { timeout: 120_000 }, async () => {
    festival = new FestivalProcess({ program: 'festival', voiceFunction: VOICE, env: process.env, tempDir: temp });
    await festival.speak('Warm up.', 1);
    const pid = festival.pid!;
    const controller = new AbortController();
    const long = festival.speak(Array.from({ length: 12 }, () => SENTENCE).join(' '), 1, controller.signal);
    setTimeout(() => controller.abort(new Error('client disconnected')), 150);
    const t0 = Date.now();
    await expect(long).rejects.toThrow('client disconnected');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await gone(pid)).toBe(true);
    expect(festival.running).toBe(false);
    expect((await festival.speak(SENTENCE, 1)).wav.equals(text2wave(SENTENCE))).toBe(true);
    expect(festival.pid).not.toBe(pid);
    await festival.close();
    expect(tempFolders()).toEqual([]);
  });

  it('speaks concurrent texts on at most two processes, each as alone, and survives a festival killed idle or mid-text', { timeout: 180_000 }, async () => {
    voice = createFestivalHts(process.env);
    const texts = ['One little line.', SENTENCE, 'A third line, with a comma.', 'And the fourth one here.'];
    const alone = texts.map((t) => text2wave(t));
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, festivals().length)), 20);
    const spoken = await Promise.all(texts.map((t) => voice!.synthesize(t, { voice: 'slt' })));
    clearInterval(watch);
    expect(most).toBeLessThanOrEqual(2);
    for (const [i, s] of spoken.entries()) expect(bytes(s.samples).equals(bytes(decodeWav(alone[i]!).samples)), texts[i]).toBe(true);

    // Killed while idle: the next text starts a fresh one.
    for (const f of festivals()) process.kill(f.pid, 'SIGKILL');
    expect((await voice.synthesize(texts[0]!, { voice: 'slt' })).samples.length).toBe(spoken[0]!.samples.length);
    // Killed while speaking: the text is spoken again by a fresh process, and comes out the same.
    const long = voice.synthesize(Array.from({ length: 6 }, () => SENTENCE).join(' '), { voice: 'slt' });
    await new Promise((r) => setTimeout(r, 200));
    const busy = festivals();
    expect(busy.length).toBeGreaterThan(0);
    for (const f of busy) process.kill(f.pid, 'SIGKILL');
    const whole = await long;
    expect(whole.samples.length).toBe(decodeWav(text2wave(Array.from({ length: 6 }, () => SENTENCE).join(' '))).samples.length);
    await voice.close();
    expect(festivals()).toEqual([]);
  });
});

describe.skipIf(festivalDiphoneMissing(process.env) !== null)("festival's diphone voices kept running", () => {
  let voice: Voice | null = null;
  afterEach(async () => {
    await voice?.close();
    voice = null;
  });

  it('speaks as text2wave does with the voice, scales its rate with Duration_Stretch, and sounds male', { timeout: 120_000 }, async () => {
    voice = createFestivalDiphone(process.env);
    const out = path.join(temp, 'kal.wav');
    execFileSync('text2wave', ['-o', out, '-eval', '(voice_kal_diphone)'], { input: `${SENTENCE}\n` });
    const reference = decodeWav(fs.readFileSync(out));
    fs.rmSync(out);
    const kal = await voice.synthesize(SENTENCE, { voice: 'kal' });
    expect(kal.sampleRate).toBe(16000);
    expect(bytes(kal.samples).equals(bytes(reference.samples))).toBe(true);
    const fast = await voice.synthesize(SENTENCE, { voice: 'kal', speed: 2 });
    expect(fast.samples.length / kal.samples.length).toBeGreaterThan(0.4);
    expect(fast.samples.length / kal.samples.length).toBeLessThan(0.6);
    // The rate is set again for each text, not left from the one before.
    expect(bytes((await voice.synthesize(SENTENCE, { voice: 'kal' })).samples).equals(bytes(kal.samples))).toBe(true);
    for (const id of ['kal', 'ked']) {
      const spoken = await voice.synthesize(SENTENCE, { voice: id });
      expect(speakerPitch([spoken.samples], spoken.sampleRate), id).toMatchObject({ gender: 'male' });
    }
  });
});
