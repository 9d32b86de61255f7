import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, fileNameFromDisposition } from './client';
import { ApiError } from './errors';

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
