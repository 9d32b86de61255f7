import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  InvalidInputError,
  issue,
  NotFoundError,
  StorageFullError,
  TooLargeError,
  UnprocessableError,
  UnsupportedMediaError,
  UnavailableError,
  UpstreamError,
} from '../errors';
import { errorStyleFor, HttpError, renderError } from './errors';
import { StorageUnavailableError } from '../storage/blobs/storage-unavailable';

describe('domain errors rendered over HTTP', () => {
  it('maps each kind to its status, in both styles', () => {
    const cases: Array<[Error, number]> = [
      [new NotFoundError('No such dub.'), 404],
      [new ConflictError('Not ready.'), 409],
      [new BadRequestError('Unknown model "x".', { code: 'model_not_found', param: 'model' }), 400],
      [new UnsupportedMediaError('Not audio.', { code: 'unsupported_file', param: 'file' }), 415],
      [new UnprocessableError('Nothing after the count-in.', { code: 'recording_too_short', param: 'count_in' }), 422],
      [new TooLargeError('Too long.'), 413],
      [new StorageFullError('Disk full.', { code: 'insufficient_storage' }), 507],
      [new UpstreamError('Mirror down.', { code: 'http_error' }), 502],
      [new UnavailableError('PocketSphinx is not installed.'), 503],
    ];
    for (const [error, status] of cases) {
      const fastapi = renderError(error, 'fastapi');
      expect(fastapi).toEqual({ status, body: { detail: error.message }, headers: {} });
      const openai = renderError(error, 'openai');
      expect(openai.status).toBe(status);
      expect((openai.body as { error: { message: string } }).error.message).toBe(error.message);
    }
  });

  it("keeps a domain error's code and parameter in OpenAI's envelope", () => {
    const rendered = renderError(new BadRequestError('Unknown model "x".', { code: 'model_not_found', param: 'model' }), 'openai');
    expect(rendered.body).toEqual({ error: { message: 'Unknown model "x".', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
    expect((renderError(new StorageFullError('Disk full.'), 'openai').body as { error: { type: string } }).error.type).toBe('server_error');
  });

  it('answers a storage outage with 503 and Retry-After, naming no storage (that is for the log)', () => {
    const outage = new StorageUnavailableError('s3://media/ at http://10.0.0.5:7480', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:7480'), { code: 'ECONNREFUSED' }));
    const fastapi = renderError(outage, 'fastapi');
    expect(fastapi).toEqual({ status: 503, body: { detail: 'The storage is unavailable; nothing was changed. Try again shortly.' }, headers: { 'Retry-After': '30' } });
    const openai = renderError(outage, 'openai');
    expect(openai.status).toBe(503);
    expect(openai.headers).toEqual({ 'Retry-After': '30' });
    expect(openai.body).toEqual({ error: { message: outage.message, type: 'server_error', param: null, code: 'storage_unavailable' } });
    expect(outage.reason).toBe('s3://media/ at http://10.0.0.5:7480 is unavailable: connect ECONNREFUSED 10.0.0.5:7480');
  });

  it('renders located invalid input as 422 (FastAPI) or 400 (OpenAI)', () => {
    const error = new InvalidInputError([issue(['body', 'frame_rate'], 'Field required', 'missing', null)]);
    expect(renderError(error, 'fastapi')).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'frame_rate'], type: 'missing' }] } });
    expect(renderError(error, 'openai')).toMatchObject({ status: 400, body: { error: { param: 'frame_rate', code: 'missing_required_parameter' } } });
  });

  it('never leaks an unknown error', () => {
    const rendered = renderError(new Error('/secret/path exploded'), 'fastapi');
    expect(rendered).toEqual({ status: 500, body: { detail: 'Internal server error.' }, headers: {} });
  });

  it('keeps an HTTP-layer error as it is', () => {
    expect(renderError(new HttpError(401, 'No key.', { headers: { 'WWW-Authenticate': 'Bearer' } }), 'fastapi')).toEqual({
      status: 401,
      body: { detail: 'No key.' },
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  });
});

describe('errorStyleFor', () => {
  it('follows the path alone, whatever the query string', () => {
    for (const url of ['/v1/models', '/v1/models?x=1', '/v1/models/whisper-1?a=b&c', '/v1/audio/transcriptions?', '/v1/audio/models#frag']) {
      expect(errorStyleFor(url)).toBe('openai');
    }
    for (const url of ['/v1/speech/projects', '/v1/speech/projects?key=/v1/audio/', '/v1/modelsx?x=1', '/healthz?x']) {
      expect(errorStyleFor(url)).toBe('fastapi');
    }
  });
});
