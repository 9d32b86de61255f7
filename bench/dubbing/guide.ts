/**
 * A revoice that follows the actor (`guide: "original"`), measured on material made here: twenty lines read
 * by two of the service's voices (flite's rms and SVOX Pico's en-US, each line at its own speed, 0.85–1.15),
 * uploaded as a dub; every line is then revoiced in festival's HTS voice, first fitted to its slot (no guide),
 * then with the dub's guide "original". For each, side by side:
 *   - median word-onset error: the revoiced line's words (the service's forced alignment of the produced audio)
 *     against a forced alignment of the original line, words paired by index (lines whose counts agree);
 *   - median pitch difference: |12·log2| of the two median F0s (the Praat-equivalent tracker), per line;
 *   - pitch contour correlation: Pearson's r of the two lines' pitch (semitones) over the frames both are voiced,
 *     each from its own start (the revoiced line from its speech start), median over the lines;
 *   - read-back WER: each revoiced line cut from the revision and transcribed by `POST /v1/audio/transcriptions`.
 *
 *   node --import tsx bench/dubbing/guide.ts
 *
 * Env: BENCH_GUIDE_LINES (20), BENCH_GUIDE_SET (`tuning`: the sentences and readers the guide was tuned on;
 * `held-out`: other sentences, other readers). Results also go to bench/results/dubbing-guide[-held-out].json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess } from '../../test/helpers/service';
import { createSession, download, revoiceToEnd, sessionSettled, uploadDub } from '../../test/helpers/dubs';
import { GUIDE_SETS, guideMaterial, median, medianOnsetError, type GuideSet } from '../../test/helpers/guide-material';
import { decodeWav, encodeWav } from '../../src/service/media/wav';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { resampleMono } from '../../src/service/media/resample';
import { resolveMediaTools } from '../../src/service/media/tools';
import { GUIDE_PITCH_RANGE, medianPitchHz } from '../../src/service/dubbing/guide/guide-line';
import { contourCorrelation } from '../../src/service/dubbing/guide/pitch-contour';
import { pitchTrack, type PitchTrack } from '../../src/service/speech/prosody/pitch';
import { sumWer, wordErrorRate } from '../../src/service/speech/scoring/wer';
import type { Revoice } from '../../src/shared/schemas';
import { writeResult } from '../lib/results';
import { hostNote } from '../lib/read-load';

const LINES = Number(process.env.BENCH_GUIDE_LINES ?? 20);
const SET = (process.env.BENCH_GUIDE_SET ?? 'tuning') as GuideSet;
if (!(SET in GUIDE_SETS)) throw new Error(`BENCH_GUIDE_SET: tuning or held-out, not ${SET}`);
const READERS = GUIDE_SETS[SET].readers;
const same = (t: number) => t;
const VOICE = 'festival-hts/slt';
const log = (s: string) => process.stdout.write(`${s}\n`);
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const svc = await startServiceProcess();
  const aligner = createPocketSphinxAligner();
  const tools = resolveMediaTools();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-guide-'));
  try {
    const sessionId = await createSession(svc, 'bench-guide');
    await sessionSettled(svc, sessionId);
    const headers = { Authorization: `Bearer ${svc.key}` };
    const api = (p: string, init: RequestInit = {}) => fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
    const patch = async (p: string, body: unknown) => {
      const res = await api(p, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`PATCH ${p}: ${res.status} ${await res.text()}`);
    };

    log(`making ${LINES} lines (${SET}) read by ${READERS.join(' and ')} …`);
    const material = await guideMaterial(svc, dir, LINES, SET);
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(material.file), filename: 'guide.wav' },
      { name: 'lines', value: JSON.stringify(material.lines) },
    ]);
    if (created.status !== 201) throw new Error(`upload: ${created.status} ${created.text()}`);
    const dubId = created.json().id as string;
    for (let id = 1; id <= LINES; id++) await patch(`/${dubId}/lines/${id}`, { voice: VOICE });

    let started = Date.now();
    const plain = await revoiceToEnd(api, dubId);
    const plainSeconds = (Date.now() - started) / 1000;
    await patch(`/${dubId}`, { guide: 'original' });
    started = Date.now();
    const guided = await revoiceToEnd(api, dubId);
    const guidedSeconds = (Date.now() - started) / 1000;
    if (plain.status !== 'complete' || guided.status !== 'complete') throw new Error(`revoice: ${plain.status} ${plain.error} / ${guided.status} ${guided.error}`);

    const original = decodeWav(fs.readFileSync(material.file));
    const originalLine = (i: number) => original.samples.subarray(Math.round(material.lines[i]!.start * material.rate), Math.round(material.lines[i]!.end * material.rate));
    const originalWords: Array<Array<{ start: number }>> = [];
    const originalPitch: Array<number | null> = [];
    const originalTrack: PitchTrack[] = [];
    for (let i = 0; i < LINES; i++) {
      const pcm16k = await resampleMono(tools, originalLine(i), material.rate, 16000);
      originalWords.push(await aligner.align(pcm16k, material.lines[i]!.text, { offset: material.lines[i]!.start }));
      originalPitch.push(medianPitchHz(pcm16k, 16000));
      originalTrack.push(pitchTrack(pcm16k, 16000, GUIDE_PITCH_RANGE));
    }

    const measure = async (revoice: Revoice) => {
      const wav = decodeWav(await download(revoice.revision!.audio.url));
      const mono = (from: number, to: number) => {
        const out = new Float32Array(to - from);
        for (let f = from; f < to; f++) for (let c = 0; c < wav.channels; c++) out[f - from]! += wav.samples[f * wav.channels + c]! / wav.channels;
        return out;
      };
      const onsets = medianOnsetError(revoice.lines.map((l, i) => ({ original: originalWords[i]!, revoiced: l.render!.words })));
      const semitones: number[] = [];
      const correlations: number[] = [];
      const wers = [];
      for (const [i, line] of revoice.lines.entries()) {
        const r = line.render!;
        const clip = mono(Math.round(r.speech.start * wav.sampleRate), Math.round(r.speech.end * wav.sampleRate));
        const pcm16k = await resampleMono(tools, clip, wav.sampleRate, 16000);
        const hz = medianPitchHz(pcm16k, 16000);
        if (hz && originalPitch[i]) semitones.push(Math.abs(12 * Math.log2(hz / originalPitch[i]!)));
        const rho = contourCorrelation(pitchTrack(pcm16k, 16000, GUIDE_PITCH_RANGE), same, originalTrack[i]!, same);
        if (Number.isFinite(rho)) correlations.push(rho);
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(encodeWav(pcm16k, { sampleRate: 16000, channels: 1, sampleFormat: 's16' }))]), `line-${line.line_id}.wav`);
        form.append('model', 'whisper-1');
        const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers, body: form });
        if (res.status !== 200) throw new Error(`transcription: ${res.status} ${await res.text()}`);
        wers.push(wordErrorRate(material.lines[i]!.text, ((await res.json()) as { text: string }).text));
      }
      return { onsetErrorMs: round(onsets.median * 1000, 1), wordsPaired: onsets.words, pitchSemitones: round(median(semitones), 2), contourCorrelation: round(median(correlations), 2), werPercent: round(sumWer(wers).wer * 100, 1) };
    };
    const without = await measure(plain);
    const withGuide = await measure(guided);
    const shifts = guided.lines.map((l) => l.render!.pitch_shift ?? 0);
    const flags = guided.lines.flatMap((l) => l.render!.flags.filter((f) => f === 'guide_by_span' || f === 'no_guide'));

    log(`\n${LINES} lines (${SET}), readers ${READERS.join(', ')}, revoiced in ${VOICE}   ${hostNote()}`);
    log(`${'measure'.padEnd(34)}${'no guide'.padStart(12)}${'guide: original'.padStart(18)}   target`);
    log(`${'median word-onset error (ms)'.padEnd(34)}${String(without.onsetErrorMs).padStart(12)}${String(withGuide.onsetErrorMs).padStart(18)}   ≤ 40`);
    log(`${'  words paired'.padEnd(34)}${String(without.wordsPaired).padStart(12)}${String(withGuide.wordsPaired).padStart(18)}`);
    log(`${'median pitch difference (st)'.padEnd(34)}${String(without.pitchSemitones).padStart(12)}${String(withGuide.pitchSemitones).padStart(18)}   ≤ 1`);
    log(`${'pitch contour correlation (r)'.padEnd(34)}${String(without.contourCorrelation).padStart(12)}${String(withGuide.contourCorrelation).padStart(18)}`);
    log(`${'read-back WER (%)'.padEnd(34)}${String(without.werPercent).padStart(12)}${String(withGuide.werPercent).padStart(18)}   ≤ no guide + 5`);
    log(`${'revoice wall time (s)'.padEnd(34)}${String(round(plainSeconds, 1)).padStart(12)}${String(round(guidedSeconds, 1)).padStart(18)}`);
    log(`pitch shifts applied (st): ${shifts.map((s) => s.toFixed(1)).join(' ')}; guide flags: ${flags.length ? flags.join(', ') : 'none'}`);
    const file = writeResult(SET === 'tuning' ? 'dubbing-guide.json' : `dubbing-guide-${SET}.json`, `${JSON.stringify({ set: SET, lines: LINES, readers: READERS, voice: VOICE, without, withGuide, plainSeconds, guidedSeconds, shifts, flags, host: hostNote() }, null, 2)}\n`);
    log(`results: ${file}`);
  } finally {
    await aligner.close();
    await svc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
