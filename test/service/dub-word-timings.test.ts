import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { createSession, download, dubMaster, referenceLines, revoiceToEnd, sessionSettled, uploadDub, wavBytes } from '../helpers/dubs';
import { createPocketSphinxAligner, type ClosableAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx/model';
import { festivalHtsMissing } from '../../src/service/speech/synthesis/festival-hts';
import { readFrames, type WavLayout } from '../../src/service/media/wav';
import { resampleMono } from '../../src/service/media/resample';
import { resolveMediaTools } from '../../src/service/media/tools';

const ready = festivalHtsMissing(process.env) === null && pocketSphinxAvailable(process.env).ok;
const norm = (w: string) => w.toLowerCase().replace(/[^a-z0-9']/g, '');

interface Render {
  speech: { start: number; end: number };
  slot: { start: number; end: number };
  words: Array<{ word: string; start: number; end: number }>;
  word_timings?: string | null;
}

describe.skipIf(!ready)("revoiced dub lines carry the voice's word timings", () => {
  let svc: ServiceProcess;
  let aligner: ClosableAligner;
  let sessionId: string;
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, { ...init, headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    svc = await startServiceProcess();
    aligner = createPocketSphinxAligner({ env: process.env });
    sessionId = await createSession(svc, 'dub-word-timings');
    await sessionSettled(svc, sessionId);
  }, 120_000);
  afterAll(async () => {
    await aligner?.close();
    await svc?.stop();
  });

  it("a festival line's words are the engine's, agree with a forced alignment of the revision; a flite line's are aligned", async () => {
    const dir = tempDir('takeline-dub-words-');
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(dubMaster(dir, 20)), filename: 'words.wav' },
      { name: 'lines', value: JSON.stringify(referenceLines(20)) },
      { name: 'voices', value: JSON.stringify({ S1: 'festival-hts/slt', S2: 'flite/rms' }) },
    ]);
    expect(created.status, created.text()).toBe(201);
    const dubId = created.json().id as string;
    const texts = { 1: 'Printing, in the only sense with which we are concerned,', 2: 'For although the Chinese printed from wood blocks long before the Dutch did,' } as const;
    for (const [id, text] of Object.entries(texts)) expect((await api(`/${dubId}/lines/${id}`, { method: 'PATCH', body: JSON.stringify({ text }) })).status).toBe(200);
    const revoice = await revoiceToEnd(api, dubId);
    expect(revoice.status, revoice.error ?? '').toBe('complete');
    const { data: lines } = (await (await api(`/${dubId}/lines`)).json()) as { data: Array<{ id: number; speaker: string; render: Render | null }> };
    const festival = lines.find((l) => l.id === 1)!.render!;
    const flite = lines.find((l) => l.id === 2)!.render!;
    expect(festival.word_timings).toBe('engine');
    expect(flite.word_timings).toBe('alignment');
    for (const [id, render] of [[1, festival], [2, flite]] as const) {
      expect(render.words.map((w) => norm(w.word))).toEqual(texts[id].split(/\s+/).map(norm));
      for (const w of render.words) {
        expect(w.start).toBeGreaterThanOrEqual(render.speech.start - 1e-6);
        expect(w.end).toBeLessThanOrEqual(render.slot.end + 1e-6);
      }
    }
    // An independent forced alignment of the festival line as the new revision carries it.
    const { audio } = (await (await api(`/${dubId}/revisions/${revoice.revision!.number}`)).json()) as { audio: { url: string } };
    const wav = wavBytes(await download(audio.url));
    const layout: WavLayout = wav.layout;
    const fd = fs.openSync(dir + '/r.wav', 'w+');
    fs.writeSync(fd, wav.bytes);
    const from = Math.round(festival.speech.start * layout.sampleRate);
    const to = Math.round(festival.speech.end * layout.sampleRate);
    const frames = readFrames(fd, layout, from, to - from);
    fs.closeSync(fd);
    const mono = new Float32Array(to - from);
    for (let f = 0; f < mono.length; f++) mono[f] = (frames[f * layout.channels]! + frames[f * layout.channels + 1]!) / 2;
    const aligned = await aligner.align(await resampleMono(resolveMediaTools(process.env), mono, layout.sampleRate, 16000), texts[1], { offset: festival.speech.start });
    expect(aligned.map((w) => norm(w.word))).toEqual(festival.words.map((w) => norm(w.word)));
    const deltas = festival.words.flatMap((w, i) => [Math.abs(w.start - aligned[i]!.start) * 1000, Math.abs(w.end - aligned[i]!.end) * 1000]).sort((a, b) => a - b);
    console.log(`revoiced festival line: engine vs forced alignment |Δ| ms: median ${deltas[Math.floor(deltas.length / 2)]!.toFixed(1)}, within 30 ms ${deltas.filter((d) => d <= 30).length}/${deltas.length}, worst ${deltas.at(-1)!.toFixed(1)}`);
    expect(deltas[Math.floor(deltas.length / 2)]!).toBeLessThanOrEqual(20);
    expect(deltas.filter((d) => d <= 30).length / deltas.length).toBeGreaterThanOrEqual(0.75);
  }, 300_000);
});
