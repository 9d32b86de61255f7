import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { compareOutside, createSession, download, dubMaster, referenceLines, revoiceToEnd, sessionSettled, uploadDub, wavBytes } from '../helpers/dubs';

interface Line {
  id: number;
  text: string;
  start: number;
  end: number;
  voice: string | null;
  speed: number | null;
  state: string;
  needs_revoice: boolean;
  review_status: string;
  revision: number;
}

/**
 * The supervisor's line API, second part: stale line edits refused by `base_revision`, lines whose
 * only change is their voice or speed revoiced, and takes.
 */
describe('dub lines: stale edits, voice and speed changes, takes', () => {
  let svc: ServiceProcess;
  let sessionId: string;
  let dubId: string;
  const reference = referenceLines(45);
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${svc.key}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const patch = (p: string, body: unknown) => api(p, { method: 'PATCH', body: JSON.stringify(body) });
  const post = (p: string, body?: unknown) => api(p, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const lines = async (): Promise<Line[]> => (await (await api(`/${dubId}/lines`)).json()).data;
  const dub = async () => (await api(`/${dubId}`)).json();
  const edits = async () => (await (await api(`/${dubId}/edits`)).json()).data;
  /** Starts a revoice and follows it to its end (the machine may be busy: no fixed wait). */
  const revoiceAll = () => revoiceToEnd(api, dubId);

  beforeAll(async () => {
    svc = await startServiceProcess();
    sessionId = await createSession(svc);
    const master = fs.readFileSync(dubMaster(tempDir('takeline-dub-takes-'), 45));
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: master, filename: 'takes.wav' },
      { name: 'lines', value: JSON.stringify(reference) },
      { name: 'voices', value: JSON.stringify({ S1: 'flite/slt', S2: 'flite/rms' }) },
    ]);
    expect(res.status, res.text()).toBe(201);
    dubId = res.json().id;
    // Revoices queue behind the recording's transcription: let it finish first.
    await sessionSettled(svc, sessionId);
  }, 600_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses a line edit made on a stale revision of the line (409) and changes nothing', async () => {
    const before = await lines();
    expect(before.every((l) => l.revision === 0)).toBe(true);
    expect(await dub()).toMatchObject({ lines_revision: 0 });
    const [one, two] = [before[1]!, before[2]!];

    const saved = await patch(`/${dubId}/lines/${one.id}`, { text: 'We leave at dawn.', base_revision: 0 });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ text: 'We leave at dawn.', revision: 1 });
    expect(await dub()).toMatchObject({ lines_revision: 1 });

    // Another window still holds revision 0 of that line: refused, nothing changes.
    const stale = await patch(`/${dubId}/lines/${one.id}`, { text: 'We leave at noon.', speed: 1.1, base_revision: 0 });
    expect(stale.status).toBe(409);
    expect((await stale.json()).detail).toMatch(/changed since revision 0/);
    // A revision the dub has not reached is no base either.
    expect((await patch(`/${dubId}/lines/${one.id}`, { text: 'We leave at noon.', base_revision: 7 })).status).toBe(409);
    // A review-only change is a change of the line too.
    expect((await patch(`/${dubId}/lines/${one.id}`, { review_status: 'approved', base_revision: 1 })).status).toBe(200);
    expect((await patch(`/${dubId}/lines/${one.id}`, { review_status: 'needs_changes', base_revision: 1 })).status).toBe(409);
    // Bad revisions are bad input.
    for (const [value, type] of [
      [-1, 'greater_than_equal'],
      [1.5, 'int_type'],
      ['2', 'float_type'],
    ] as const) {
      const res = await patch(`/${dubId}/lines/${one.id}`, { text: 'We leave at noon.', base_revision: value });
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({ type, loc: ['body', 'base_revision'] });
    }
    const alone = await patch(`/${dubId}/lines/${one.id}`, { base_revision: 2 });
    expect(alone.status).toBe(422);
    expect((await alone.json()).detail[0]).toMatchObject({ type: 'missing', loc: ['body'] });
    const now = (await lines()).find((l) => l.id === one.id)!;
    expect(now).toMatchObject({ text: 'We leave at dawn.', speed: null, review_status: 'approved', revision: 2 });
    expect(await dub()).toMatchObject({ lines_revision: 2 });
    expect(await edits()).toHaveLength(1);

    // An edit of another line does not make this one stale, and a base at or after the line's revision passes.
    expect((await patch(`/${dubId}/lines/${two.id}`, { text: 'Not yet.', base_revision: 0 })).status).toBe(200);
    const current = await patch(`/${dubId}/lines/${one.id}`, { text: 'We leave at noon.', base_revision: 3 });
    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ text: 'We leave at noon.', revision: 4, review_status: 'todo' });
    // Undo writes the line again: its revision moves on, so a client holding 4 is stale once it is undone.
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    const undone = (await lines()).find((l) => l.id === one.id)!;
    expect(undone.revision).toBeGreaterThan(4);
    expect(undone).toMatchObject({ text: 'We leave at dawn.', revision: (await dub()).lines_revision });
    expect((await patch(`/${dubId}/lines/${one.id}`, { text: 'Again.', base_revision: 4 })).status).toBe(409);
    // Back as it was for the next tests.
    expect((await patch(`/${dubId}/lines/${one.id}`, { text: one.text })).status).toBe(200);
    expect((await patch(`/${dubId}/lines/${two.id}`, { text: two.text })).status).toBe(200);
    expect((await lines()).every((l) => l.state === 'original' && !l.needs_revoice)).toBe(true);
  });

  it('revoices a line whose only change is its own voice or its speed, and only those', { timeout: 600_000 }, async () => {
    const before = await lines();
    const [byVoice, bySpeed, backAgain] = [before[5]!, before[2]!, before[4]!];
    const voiced = await (await patch(`/${dubId}/lines/${byVoice.id}`, { voice: 'flite/awb' })).json();
    expect(voiced).toMatchObject({ text: byVoice.text, voice: 'flite/awb', state: 'corrected', needs_revoice: true });
    const faster = await (await patch(`/${dubId}/lines/${bySpeed.id}`, { speed: 1.1 })).json();
    expect(faster).toMatchObject({ text: bySpeed.text, speed: 1.1, state: 'corrected', needs_revoice: true });
    // A voice set and taken back is no change.
    await patch(`/${dubId}/lines/${backAgain.id}`, { voice: 'flite/kal' });
    expect(await (await patch(`/${dubId}/lines/${backAgain.id}`, { voice: null })).json()).toMatchObject({ state: 'original', needs_revoice: false });
    // A voice for the speaker alone says which voice its changed lines get: it does not revoice all of them.
    expect((await patch(`/${dubId}`, { voices: { S1: 'flite/kal' } })).status).toBe(200);
    expect(await dub()).toMatchObject({ lines: { pending: 2 } });

    const revoice = await revoiceAll();
    expect(revoice.status).toBe('complete');
    expect(revoice.lines.map((l) => l.line_id).sort()).toEqual([byVoice.id, bySpeed.id].sort());
    const byId = new Map(revoice.lines.map((l) => [l.line_id, l]));
    expect(byId.get(byVoice.id)).toMatchObject({ voice: 'flite/awb' });
    expect((byId.get(bySpeed.id) as { render: { speed: number; stretch: number } }).render).toMatchObject({ speed: 1.1, stretch: 0.909091 });
    const after = await lines();
    expect(after.filter((l) => l.state === 'voiced').map((l) => l.id).sort()).toEqual([byVoice.id, bySpeed.id].sort());
    expect(after.filter((l) => l.state !== 'voiced').every((l) => l.state === 'original')).toBe(true);
    expect(await dub()).toMatchObject({ lines: { pending: 0 } });
  });

  it('renders takes of a line (voices, speeds), refuses bad requests storing nothing, and puts the chosen take in as a new revision', { timeout: 600_000 }, async () => {
    const line = (await lines())[3]!;
    const takesOf = async (id = line.id) => (await (await api(`/${dubId}/lines/${id}/takes`)).json()).data;
    const put = (body: unknown, id = line.id) => api(`/${dubId}/lines/${id}/take`, { method: 'PUT', body: JSON.stringify(body) });
    for (const [body, type, loc] of [
      [{ count: 0 }, 'greater_than_equal', ['body', 'count']],
      [{ count: 6 }, 'less_than_equal', ['body', 'count']],
      [{}, 'missing', ['body', 'count']],
      [{ count: 2, voices: ['flite/nobody'] }, 'voice_not_found', ['body', 'voices', 0]],
      [{ count: 2, speeds: [1.5] }, 'less_than_equal', ['body', 'speeds', 0]],
      [{ count: 2, voices: [] }, 'too_short', ['body', 'voices']],
      [{ count: 2, seed: 3 }, 'extra_forbidden', ['body', 'seed']],
      [{ count: 3, voices: ['flite/slt'], speeds: [1, 1] }, 'too_few_variants', ['body', 'count']],
    ] as const) {
      const res = await post(`/${dubId}/lines/${line.id}/takes`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).detail[0], JSON.stringify(body)).toMatchObject({ type, loc });
    }
    expect(await takesOf()).toEqual([]);
    expect((await post(`/${dubId}/lines/999/takes`, { count: 1 })).status).toBe(404);

    const revisionsBefore = (await (await api(`/${dubId}/revisions`)).json()).data;
    const rendered = await post(`/${dubId}/lines/${line.id}/takes?wait=120`, { count: 3, voices: ['flite/slt', 'flite/rms'], speeds: [null, 1.1] });
    expect(rendered.status).toBe(200);
    const { data: takes } = await rendered.json();
    // Speeds outer, voices inner.
    expect(takes.map((t: { number: number; voice: string; speed: number | null; status: string }) => [t.number, t.voice, t.speed, t.status])).toEqual([
      [1, 'flite/slt', null, 'ready'],
      [2, 'flite/rms', null, 'ready'],
      [3, 'flite/slt', 1.1, 'ready'],
    ]);
    expect(takes.every((t: { stale: boolean; chosen: boolean; text: string }) => !t.stale && !t.chosen && t.text === line.text)).toBe(true);
    expect(takes[2].render).toMatchObject({ speed: 1.1, stretch: 0.909091, voice: 'flite/slt', take_id: takes[2].id });
    // Nothing stored changes until one is chosen.
    expect((await (await api(`/${dubId}/revisions`)).json()).data).toHaveLength(revisionsBefore.length);
    expect((await lines())[3]).toMatchObject({ state: 'original', revision: line.revision });

    // Each take's audio is its region as the dub would sound with it, at the dub's format; each differs.
    const audio = await Promise.all(takes.map(async (t: { audio: { url: string } }) => wavBytes(await download(t.audio.url))));
    for (const [i, wav] of audio.entries()) {
      expect(wav.layout).toMatchObject({ sampleRate: 48000, channels: 2, sampleFormat: 's24', frames: takes[i].render.region.end_frame - takes[i].render.region.start_frame });
    }
    expect(audio[0]!.bytes.equals(audio[1]!.bytes)).toBe(false);
    expect((await fetch(takes[0].audio.url.replace(/signature=[^&]+/, 'signature=forged'))).status).toBe(403);
    expect((await fetch(takes[0].audio.url, { headers: { Range: 'bytes=0-43' } })).status).toBe(206);

    // Bad choices change nothing.
    const other = (await lines())[1]!;
    for (const [body, status, type] of [
      [{ take_id: '00000000-0000-4000-8000-000000000000' }, 422, 'take_not_found'],
      [{ take_id: 'nope' }, 422, 'uuid_parsing'],
      [{}, 422, 'missing'],
    ] as const) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await res.json()).detail[0]).toMatchObject({ type, loc: ['body', 'take_id'] });
    }
    expect((await put({ take_id: takes[0].id }, other.id)).status).toBe(422);

    // Choosing take 1 (line 4 is S2's, read by flite/rms; the take reads flite/slt): a new revision with only its region rewritten, bit for bit its audition.
    const chosen = await put({ take_id: takes[0].id });
    expect(chosen.status, svc.output().slice(-3000)).toBe(200);
    const { line: after, revision } = await chosen.json();
    expect(revision).toMatchObject({ number: revisionsBefore.length + 1, source: 'take', take_id: takes[0].id, revoice_id: null, lines_revoiced: [line.id], current: true });
    expect(after).toMatchObject({ id: line.id, state: 'voiced', needs_revoice: false, voice: 'flite/slt', speed: null, review_status: 'todo' });
    expect(after.render).toMatchObject({ take_id: takes[0].id, revision: revision.number, voice: 'flite/slt' });
    const base = wavBytes(await download(revisionsBefore.at(-1).audio.url));
    const made = wavBytes(await download(revision.audio.url));
    const region = takes[0].render.region;
    expect(compareOutside(base, made, [region]).outside).toBe(0);
    const inside = made.bytes.subarray(made.layout.dataOffset + region.start_frame * 6, made.layout.dataOffset + region.end_frame * 6);
    expect(inside.equals(audio[0]!.bytes.subarray(audio[0]!.layout.dataOffset))).toBe(true);
    expect((await takesOf()).map((t: { chosen: boolean }) => t.chosen)).toEqual([true, false, false]);
    // The voice change is an undoable correction.
    expect((await edits()).at(-1)).toMatchObject({ op: 'correct', before: [line.id], after: [line.id] });

    // Once the line's text changes, its takes could not be put in: the ones not chosen are removed, the chosen
    // one stays (its revision names it), stale.
    await patch(`/${dubId}/lines/${line.id}`, { text: 'A different line altogether.' });
    expect((await takesOf()).map((t: { id: string; stale: boolean; chosen: boolean }) => [t.id, t.stale, t.chosen])).toEqual([[takes[0].id, true, true]]);
    expect((await put({ take_id: takes[1].id })).status).toBe(422);
    const stale = await put({ take_id: takes[0].id });
    expect(stale.status).toBe(409);
    expect((await (await api(`/${dubId}/revisions`)).json()).data).toHaveLength(revisionsBefore.length + 1);
    expect(await dub()).toMatchObject({ current_revision: revision.number });
  });

  it('removes takes that newer takes replaced or a change of their line made unusable, rows and files; keeps the chosen one; deleting the dub removes all', { timeout: 600_000 }, async () => {
    const [line, neighbour] = (await lines()).slice(-2) as [Line, Line];
    const takesOf = async () => (await (await api(`/${dubId}/lines/${line.id}/takes`)).json()).data as Array<{ id: string; number: number; stale: boolean; chosen: boolean; status: string; audio: { url: string } | null }>;
    const takesFolder = path.join(svc.dataDir, 'recordings', sessionId, 'dubs', dubId, 'takes');
    /** The take ids that have files, each with both of its files. */
    const takeFiles = () => {
      const names = fs.existsSync(takesFolder) ? fs.readdirSync(takesFolder) : [];
      const ids = new Set(names.map((n) => n.replace(/\.(patch|wav)$/, '')));
      for (const id of ids) expect(names.filter((n) => n.startsWith(id)).sort(), id).toEqual([`${id}.patch`, `${id}.wav`]);
      return ids;
    };
    const render = async (body: unknown) => {
      const res = await post(`/${dubId}/lines/${line.id}/takes?wait=120`, body);
      expect(res.status).toBe(200);
      const { data } = await res.json();
      expect(data.every((t: { status: string }) => t.status === 'ready')).toBe(true);
      return data as Array<{ id: string; number: number; audio: { url: string } }>;
    };
    const filesBefore = takeFiles();

    // A first set, one of which is put in.
    const first = await render({ count: 2, voices: ['flite/slt', 'flite/rms'] });
    for (const t of first) expect(takeFiles().has(t.id)).toBe(true);
    const chosen = await api(`/${dubId}/lines/${line.id}/take`, { method: 'PUT', body: JSON.stringify({ take_id: first[1]!.id }) });
    expect(chosen.status).toBe(200);
    const { revision } = await chosen.json();

    // A second set replaces the first: the take not chosen goes (row and files, its audio no longer served),
    // the chosen one stays; numbers go on after the first set's.
    const second = await render({ count: 2, voices: ['flite/awb'], speeds: [null, 1.1] });
    expect((await takesOf()).map((t) => [t.number, t.id, t.chosen])).toEqual([
      [2, first[1]!.id, true],
      [3, second[0]!.id, false],
      [4, second[1]!.id, false],
    ]);
    expect(takeFiles()).toEqual(new Set([...filesBefore, first[1]!.id, second[0]!.id, second[1]!.id]));
    expect((await fetch(first[0]!.audio.url)).status).toBe(403);
    expect((await fetch(first[1]!.audio.url)).status).toBe(200);

    // The next line starting later changes the room the line's takes were fitted into: they go, except the chosen one.
    const retimed = await patch(`/${dubId}/lines/${neighbour.id}`, { start: neighbour.start + 0.1 });
    expect(retimed.status).toBe(200);
    expect((await takesOf()).map((t) => [t.id, t.chosen])).toEqual([[first[1]!.id, true]]);
    expect(takeFiles()).toEqual(new Set([...filesBefore, first[1]!.id]));
    // What is in use is intact: the revision that put the take in, and the take's own audition.
    expect((await fetch(revision.audio.url)).status).toBe(200);
    expect((await fetch(first[1]!.audio.url)).status).toBe(200);
    // A voice change alone leaves takes (each carries its own voice).
    const third = await render({ count: 1, voices: ['flite/kal16'] });
    expect((await patch(`/${dubId}/lines/${line.id}`, { voice: 'flite/slt' })).status).toBe(200);
    expect((await takesOf()).map((t) => t.id)).toEqual([first[1]!.id, third[0]!.id]);

    // Asked for again before the earlier takes are rendered: those go, and whatever their job still writes goes too
    // (the jobs run one after the other, so the first has ended once the second's takes are ready).
    const early = await post(`/${dubId}/lines/${line.id}/takes?wait=0`, { count: 2, voices: ['flite/slt', 'flite/awb'] });
    expect(early.status).toBe(202);
    const late = await render({ count: 1, voices: ['flite/rms'] });
    expect((await takesOf()).map((t) => t.id)).toEqual([first[1]!.id, late[0]!.id]);
    expect(takeFiles()).toEqual(new Set([...filesBefore, first[1]!.id, late[0]!.id]));

    // Deleting the dub removes every row and file of it.
    expect((await api(`/${dubId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/${dubId}/lines/${line.id}/takes`)).status).toBe(404);
    expect(fs.existsSync(path.join(svc.dataDir, 'recordings', sessionId, 'dubs', dubId))).toBe(false);
  });

  it('documents the take routes and base_revision in a valid OpenAPI document', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    const result = await validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const base = '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}';
    expect(doc.paths[`${base}/lines/{line_id}/takes`].post).toBeDefined();
    expect(doc.paths[`${base}/lines/{line_id}/takes`].get).toBeDefined();
    expect(doc.paths[`${base}/lines/{line_id}/take`].put).toBeDefined();
    expect(doc.paths[`${base}/takes/{take_id}/file`].get).toBeDefined();
    expect(doc.components.schemas.LinePatch.properties.base_revision).toBeDefined();
  });
});
