import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, fileNameFromDisposition } from './client';
import { ApiError } from './errors';
import { analysisDocument, SESSION_ID } from '../analysis/testing/document';

afterEach(() => vi.unstubAllGlobals());

function stubFetch(status: number, body: unknown) {
  const fetchMock = vi.fn(
    async (_url: string, _init: RequestInit) =>
      new Response(body === null ? null : JSON.stringify(body), { status }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('createApiClient', () => {
  it('sends the bearer key when a key source is given', async () => {
    const fetchMock = stubFetch(200, { data: [] });
    await createApiClient({ apiKey: async () => 'tk_secret' }).listProjects();
    const init = fetchMock.mock.calls[0]![1];
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tk_secret');
    expect(init.credentials).toBe('same-origin');
  });

  it('relies on the cookie (no Authorization header) in a browser', async () => {
    const fetchMock = stubFetch(200, { data: [] });
    await createApiClient().listProjects();
    const init = fetchMock.mock.calls[0]![1];
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
    expect(fetchMock.mock.calls[0]![0]).toBe('/v1/speech/projects');
  });

  it('throws the service message with field details on 422', async () => {
    stubFetch(422, { detail: [{ loc: ['body', 'tape'], msg: 'at most 32 characters', type: 'too_big' }] });
    const err = await createApiClient()
      .setMedia('s1', { frame_rate: '25', drop_frame: false, start_timecode: null, tape: 'x'.repeat(40) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).fields.tape).toEqual(['at most 32 characters']);
  });
});

describe('fileNameFromDisposition', () => {
  it('reads quoted, bare and RFC 5987 names', () => {
    expect(fileNameFromDisposition('attachment; filename="talk.srt"', 'x')).toBe('talk.srt');
    expect(fileNameFromDisposition('attachment; filename=talk.edl', 'x')).toBe('talk.edl');
    expect(fileNameFromDisposition("attachment; filename*=UTF-8''caf%C3%A9.vtt", 'x')).toBe('café.vtt');
    expect(fileNameFromDisposition(null, 'fallback.csv')).toBe('fallback.csv');
  });
});

describe('analysis routes', () => {
  it('reads the Analysis document through the shared schema, for the newest run or a given one', async () => {
    const doc = analysisDocument();
    const fetchMock = stubFetch(200, doc);
    const api = createApiClient();
    expect(await api.getIntelligence(SESSION_ID)).toEqual(doc);
    expect(fetchMock.mock.calls[0]![0]).toBe(`/v1/speech/transcriptions/${SESSION_ID}/intelligence`);
    await api.getIntelligence(SESSION_ID, { runId: 'r 1' });
    expect(fetchMock.mock.calls[1]![0]).toBe(
      `/v1/speech/transcriptions/${SESSION_ID}/intelligence?run_id=r%201`,
    );
  });

  it('names the field when the service answers with another shape', async () => {
    const doc = analysisDocument();
    (doc.intelligence.segments[0]!.prosody as any).pitch_hz = 'high';
    stubFetch(200, doc);
    const err = await createApiClient()
      .getIntelligence(SESSION_ID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toMatch(
      /^The service sent an analysis the studio cannot read at intelligence\.segments\.0\.prosody\.pitch_hz: /,
    );
  });

  it('starts a run with POST and passes on the 409 detail while the transcript is not complete', async () => {
    const run = {
      run_id: 'b7f3a9a0-7d7c-4c39-9f0e-5b1a2c3d4e5f',
      session_id: SESSION_ID,
      status: 'queued',
      stage: 'queued',
      progress: 0,
      version: '1.0.0',
      error: null,
      created_at: '2026-01-01T10:00:00.000Z',
      started_at: null,
      completed_at: null,
      created: true,
    };
    const fetchMock = stubFetch(202, run);
    expect(await createApiClient().startAnalysis(SESSION_ID)).toEqual(run);
    expect(fetchMock.mock.calls[0]![1].method).toBe('POST');

    stubFetch(409, {
      detail:
        'The transcript is not complete yet (status: running); the analysis starts by itself when it completes.',
    });
    const err = await createApiClient()
      .startAnalysis(SESSION_ID)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 409,
      message: expect.stringMatching(/^The transcript is not complete yet/),
    });
  });

  it('lists runs', async () => {
    stubFetch(200, { data: [] });
    expect(await createApiClient().listAnalysisRuns(SESSION_ID)).toEqual([]);
  });
});

describe('polled documents', () => {
  it('revalidates a session by ETag: a 304 hands back the copy already read', async () => {
    const session = { id: SESSION_ID, status: 'running', progress: 0.5 };
    const answers = [
      new Response(JSON.stringify(session), { status: 200, headers: { ETag: '"e.s.1"' } }),
      new Response(null, { status: 304, headers: { ETag: '"e.s.1"' } }),
      new Response(JSON.stringify({ ...session, progress: 0.6 }), { status: 200, headers: { ETag: '"e.s.2"' } }),
    ];
    const fetchMock = vi.fn(async (_url: string, _init: RequestInit) => answers.shift()!);
    vi.stubGlobal('fetch', fetchMock);
    const api = createApiClient();
    const first = await api.getSession(SESSION_ID);
    expect(first).toEqual(session);
    const header = (i: number) => (fetchMock.mock.calls[i]![1].headers as Record<string, string>)['If-None-Match'];
    expect(header(0)).toBeUndefined();
    expect(await api.getSession(SESSION_ID)).toBe(first);
    expect(header(1)).toBe('"e.s.1"');
    expect((await api.getSession(SESSION_ID)).progress).toBe(0.6);
    expect(header(2)).toBe('"e.s.1"');
  });

  it('revalidates the analysis document the same way, parsed once', async () => {
    const doc = analysisDocument();
    const answers = [
      new Response(JSON.stringify(doc), { status: 200, headers: { ETag: '"e.i.1"' } }),
      new Response(null, { status: 304, headers: { ETag: '"e.i.1"' } }),
    ];
    const fetchMock = vi.fn(async (_url: string, _init: RequestInit) => answers.shift()!);
    vi.stubGlobal('fetch', fetchMock);
    const api = createApiClient();
    const first = await api.getIntelligence(SESSION_ID);
    expect(await api.getIntelligence(SESSION_ID)).toBe(first);
    expect((fetchMock.mock.calls[1]![1].headers as Record<string, string>)['If-None-Match']).toBe('"e.i.1"');
  });
});

describe('word corrections', () => {
  const at = '/v1/speech/transcriptions/s%201/transcript';
  it('patches a line (or a word range) with the revision it was made on', async () => {
    const fetchMock = stubFetch(200, { revision: { revision: 3 }, session: {} });
    const edit = await createApiClient().editLineText('s 1', 4, { text: 'Siobhan', word_start: 2, word_end: 2, base_revision: 2 });
    expect(edit.revision.revision).toBe(3);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`${at}/segments/4`);
    expect(init.method).toBe('PATCH');
    expect(JSON.parse(String(init.body))).toEqual({ text: 'Siobhan', word_start: 2, word_end: 2, base_revision: 2 });
  });

  it('previews and applies a replacement, and aligns a script', async () => {
    const fetchMock = stubFetch(200, { preview: true, count: 0, matches: [], revision: null });
    await createApiClient().replaceText('s 1', { find: 'show on', replace: 'Siobhan', preview: true });
    await createApiClient().alignScript('s 1', { text: 'A script.', base_revision: 1 });
    expect(fetchMock.mock.calls.map(([u, i]) => [u, i.method, JSON.parse(String(i.body))])).toEqual([
      [`${at}/replace`, 'POST', { find: 'show on', replace: 'Siobhan', preview: true }],
      [`${at}/align`, 'POST', { text: 'A script.', base_revision: 1 }],
    ]);
  });

  it('passes on a stale revision as a 409 ApiError', async () => {
    stubFetch(409, { detail: 'The transcript is at revision 5, not 4.' });
    const err = await createApiClient().editLineText('s1', 0, { text: 'x', base_revision: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
  });
});
