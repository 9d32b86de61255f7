import { describe, expect, it } from 'vitest';
import { clientErrorResponse } from './client-error';

const parse = (raw: string) => {
  const [head, body] = raw.split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), head: head!, body: JSON.parse(body!) };
};

describe('clientErrorResponse', () => {
  it('answers an oversized request line with 431 in the detail shape', () => {
    const answer = parse(clientErrorResponse({ code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from('GET /v1/speech/projects/aaaa') }));
    expect(answer.status).toBe(431);
    expect(answer.head).toMatch(/Content-Type: application\/json/);
    expect(answer.body).toEqual({ detail: expect.stringMatching(/too large/) });
  });

  it('uses the OpenAI envelope when the path is an OpenAI-style route', () => {
    const answer = parse(clientErrorResponse({ code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from('GET /v1/models/xxxxxxxx') }));
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('answers malformed HTTP with 400, with a correct Content-Length', () => {
    const raw = clientErrorResponse({ code: 'HPE_INVALID_METHOD', rawPacket: Buffer.from('\u0001\u0002') });
    const answer = parse(raw);
    expect(answer.status).toBe(400);
    expect(Number(/Content-Length: (\d+)/.exec(answer.head)![1])).toBe(Buffer.byteLength(raw.split('\r\n\r\n')[1]!));
  });
});
