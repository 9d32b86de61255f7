import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';

describe('projects', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const post = (body: unknown, contentType = 'application/json') =>
    rawRequest(`${svc.url}/v1/speech/projects`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('creates a project (201 {id, key, name}) and refuses an existing key with 409', async () => {
    const res = await post({ key: 'ep104-dub', name: 'Episode 104' });
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), key: 'ep104-dub', name: 'Episode 104' });
    const again = await post({ key: 'ep104-dub', name: 'Another' });
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({ detail: 'A project with key "ep104-dub" already exists.' });
  });

  it('reads a project by id and by key, with its speakers, and lists projects', async () => {
    const created = (await post({ key: 'reads', name: 'Reads' })).json();
    for (const ref of [created.id, 'reads']) {
      const res = await fetch(`${svc.url}/v1/speech/projects/${ref}`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ...created, created_at: expect.any(String), speakers: [] });
    }
    const list = await (await fetch(`${svc.url}/v1/speech/projects`, { headers: auth })).json();
    expect(list.data.map((p: { key: string }) => p.key)).toContain('reads');
    expect((await fetch(`${svc.url}/v1/speech/projects/nope`, { headers: auth })).status).toBe(404);
  });

  it('keeps a vocabulary per project: replaced by PUT, repeats dropped, validated in FastAPI shape', async () => {
    await post({ key: 'vocab', name: 'Vocabulary' });
    const url = `${svc.url}/v1/speech/projects/vocab/vocabulary`;
    const put = (body: unknown) =>
      rawRequest(url, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(await (await fetch(url, { headers: auth })).json()).toEqual({ terms: [] });
    const saved = await put({ terms: ['  Siobhan McAllister ', 'Takeline', 'takeline', "O'Neill", 'Dr. Okonkwo'] });
    expect(saved.status).toBe(200);
    expect(saved.json()).toEqual({ terms: ['Siobhan McAllister', 'Takeline', "O'Neill", 'Dr. Okonkwo'] });
    expect(await (await fetch(url, { headers: auth })).json()).toEqual(saved.json());
    const cases: Array<[unknown, (string | number)[], string]> = [
      [{ terms: ['ok', '<script>'] }, ['body', 'terms', 1], 'string_pattern_mismatch'],
      [{ terms: [''] }, ['body', 'terms', 0], 'string_too_short'],
      [{ terms: ['x'.repeat(65)] }, ['body', 'terms', 0], 'string_too_long'],
      [{ terms: Array.from({ length: 501 }, (_, i) => `t${i}`) }, ['body', 'terms'], 'too_long'],
      [{ terms: 'Takeline' }, ['body', 'terms'], 'list_type'],
      [{}, ['body', 'terms'], 'missing'],
      [{ terms: [], extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
    ];
    for (const [body, loc, type] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.json().detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    }
    // A refused update keeps what was stored.
    expect(await (await fetch(url, { headers: auth })).json()).toEqual(saved.json());
    expect((await put({ terms: [] })).json()).toEqual({ terms: [] });
    expect((await fetch(`${svc.url}/v1/speech/projects/nope/vocabulary`, { headers: auth })).status).toBe(404);
  });

  it('validates key and name in FastAPI shape', async () => {
    const cases: Array<[unknown, string[], string]> = [
      [{ key: 'Upper', name: 'x' }, ['body', 'key'], 'string_pattern_mismatch'],
      [{ key: 'a'.repeat(65), name: 'x' }, ['body', 'key'], 'string_too_long'],
      [{ key: '', name: 'x' }, ['body', 'key'], 'string_too_short'],
      [{ key: '../etc', name: 'x' }, ['body', 'key'], 'string_pattern_mismatch'],
      [{ key: 'ok', name: 'n'.repeat(201) }, ['body', 'name'], 'string_too_long'],
      [{ key: 'ok', name: '   ' }, ['body', 'name'], 'string_too_short'],
      [{ key: 'ok' }, ['body', 'name'], 'missing'],
      [{ key: 5, name: 'x' }, ['body', 'key'], 'string_type'],
      [{ key: 'ok', name: 'x', extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
      [[1, 2], ['body'], 'model_attributes_type'],
    ];
    for (const [body, loc, type] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const detail = res.json().detail;
      expect(detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
      for (const entry of detail) expect(Object.keys(entry).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    }
    const tooLong = (await post({ key: 'a'.repeat(65), name: 'x' })).json().detail[0];
    expect(tooLong).toMatchObject({ input: 'a'.repeat(65), ctx: { max_length: 64 } });
  });

  it('answers malformed JSON with 422, a non-JSON body with 415 and an oversized one with 413', async () => {
    const malformed = await post('{"key": "x",');
    expect(malformed.status).toBe(422);
    expect(malformed.json().detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    expect((await post('key=x&name=y', 'application/x-www-form-urlencoded')).status).toBe(415);
    const big = await post({ key: 'big', name: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.json()).toEqual({ detail: expect.any(String) });
  });
});
