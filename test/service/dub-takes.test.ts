import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { createSession, dubMaster, referenceLines, sessionSettled, uploadDub } from '../helpers/dubs';

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
 * The supervisor's line API, second part (issue 32): stale line edits refused by `base_revision`, lines whose
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
  const revoiceAll = async () => {
    const started = await post(`/${dubId}/revoice?wait=0`);
    expect([200, 202]).toContain(started.status);
    let revoice = await started.json();
    for (let i = 0; i < 1200 && (revoice.status === 'queued' || revoice.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 500));
      revoice = await (await api(`/${dubId}/revoices/${revoice.id}`)).json();
    }
    return revoice;
  };

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
    expect(revoice.lines.map((l: { line_id: number }) => l.line_id).sort()).toEqual([byVoice.id, bySpeed.id].sort());
    const byId = new Map(revoice.lines.map((l: { line_id: number; voice: string; render: { speed: number | null; stretch: number } }) => [l.line_id, l]));
    expect(byId.get(byVoice.id)).toMatchObject({ voice: 'flite/awb' });
    expect((byId.get(bySpeed.id) as { render: { speed: number; stretch: number } }).render).toMatchObject({ speed: 1.1, stretch: 0.909091 });
    const after = await lines();
    expect(after.filter((l) => l.state === 'voiced').map((l) => l.id).sort()).toEqual([byVoice.id, bySpeed.id].sort());
    expect(after.filter((l) => l.state !== 'voiced').every((l) => l.state === 'original')).toBe(true);
    expect(await dub()).toMatchObject({ lines: { pending: 0 } });
  });
});
