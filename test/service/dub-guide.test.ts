import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { compareOutside, createSession, download, revoiceToEnd, sessionSettled, uploadDub, wavBytes } from '../helpers/dubs';
import { guideMaterial, medianOnsetError } from '../helpers/guide-material';
import { decodeWav } from '../../src/service/media/wav';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { resampleMono } from '../../src/service/media/resample';
import { resolveMediaTools } from '../../src/service/media/tools';
import type { Revoice } from '../../src/shared/schemas';

describe('a revoice guided by the original', () => {
  let svc: ServiceProcess;
  let sessionId: string;
  const aligner = createPocketSphinxAligner();

  beforeAll(async () => {
    svc = await startServiceProcess();
    sessionId = await createSession(svc);
    await sessionSettled(svc, sessionId);
  });
  afterAll(async () => {
    await aligner.close();
    await svc?.stop();
  });

  it('moves word onsets onto the original\'s and leaves every sample outside the lines identical', { timeout: 600_000 }, async () => {
    const material = await guideMaterial(svc, tempDir('takeline-guide-'), 4);
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(material.file), filename: 'dub.wav' },
      { name: 'lines', value: JSON.stringify(material.lines) },
    ]);
    expect(created.status).toBe(201);
    const dubId = created.json().id as string;
    const headers = { Authorization: `Bearer ${svc.key}` };
    const api = (p: string, init: RequestInit = {}) => fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
    const patch = async (p: string, body: unknown) => {
      const res = await api(p, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json();
    };
    // Bad input: a guide that does not exist is refused with the validation shape, nothing changes.
    const bad = await api(`/${dubId}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ guide: 'actor' }) });
    expect(bad.status).toBe(422);
    expect((await (await api(`/${dubId}`)).json()).guide).toBeNull();

    // The same new voice for every line, first fitted to the slots, then following the original.
    for (const id of [1, 2, 3, 4]) await patch(`/${dubId}/lines/${id}`, { voice: 'festival-hts/slt' });
    const plain = await revoiceToEnd(api, dubId);
    expect(plain.status).toBe('complete');
    expect((await patch(`/${dubId}`, { guide: 'original' })).guide).toBe('original');
    // One line overrides the dub's guide: it keeps its fitted rendering (and needs no revoice).
    const own = await patch(`/${dubId}/lines/4`, { guide: null });
    expect(own).toMatchObject({ guide: null, effective_guide: 'original', needs_revoice: true });
    const line4 = await patch(`/${dubId}/lines/4`, { guide: 'original' });
    expect(line4).toMatchObject({ guide: 'original', effective_guide: 'original' });
    const guided = await revoiceToEnd(api, dubId);
    expect(guided.status).toBe('complete');
    expect(guided.lines.map((l) => l.line_id)).toEqual([1, 2, 3, 4]);
    for (const l of guided.lines) expect(l.render).toMatchObject({ guide: 'original' });

    // Every sample outside the guided lines' regions is the previous revision's, and the upload's.
    const revisionAudio = async (r: Revoice) => wavBytes(await download(r.revision!.audio.url));
    const { data: revisions } = await (await api(`/${dubId}/revisions`)).json();
    const upload = wavBytes(await download(revisions.find((r: { number: number }) => r.number === 1).audio.url));
    const before = await revisionAudio(plain);
    const after = await revisionAudio(guided);
    const regions = guided.lines.map((l) => l.render!.region);
    expect(compareOutside(before, after, regions).outside).toBe(0);
    expect(compareOutside(upload, after, regions).outside).toBe(0);

    // Word onsets: the original's (forced alignment of the upload's line) against each revision's words.
    const tools = resolveMediaTools();
    const original = decodeWav(fs.readFileSync(material.file));
    const originalWords = await Promise.all(
      material.lines.map(async (line) => {
        const pcm = original.samples.subarray(Math.round(line.start * material.rate), Math.round(line.end * material.rate));
        return aligner.align(await resampleMono(tools, pcm, material.rate, 16000), line.text, { offset: line.start });
      }),
    );
    const errorOf = (r: Revoice) => medianOnsetError(r.lines.map((l, i) => ({ original: originalWords[i]!, revoiced: l.render!.words })));
    const withGuide = errorOf(guided);
    const without = errorOf(plain);
    expect(withGuide.words).toBeGreaterThan(20);
    expect(withGuide.median).toBeLessThan(0.06);
    expect(withGuide.median).toBeLessThan(without.median);

    // A take of a guided line follows the original as its revoice does (its timing and pitch, not the slot's fit).
    const asked = await api(`/${dubId}/lines/2/takes?wait=120`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ count: 1, speeds: [null] }) });
    expect([200, 202], await asked.clone().text()).toContain(asked.status);
    type Take = { status: string; render: { guide: string | null; pitch_shift?: number; words: Array<{ start: number }> } };
    let [take] = (await asked.json()).data as Take[];
    // A busy machine may take longer than the longest wait the route allows.
    for (let i = 0; i < 600 && (take!.status === 'queued' || take!.status === 'rendering'); i++) {
      await new Promise((r) => setTimeout(r, 500));
      [take] = (await (await api(`/${dubId}/lines/2/takes`)).json()).data as Take[];
    }
    expect(take!.status).toBe('ready');
    expect(take!.render).toMatchObject({ guide: 'original' });
    expect(take!.render.pitch_shift).toBeTypeOf('number');
    const takeError = medianOnsetError([{ original: originalWords[1]!, revoiced: take!.render.words }]);
    const plainError = medianOnsetError([{ original: originalWords[1]!, revoiced: plain.lines[1]!.render!.words }]);
    expect(takeError.words).toBeGreaterThan(5);
    expect(takeError.median).toBeLessThan(0.06);
    expect(takeError.median).toBeLessThan(plainError.median);
  });
});
