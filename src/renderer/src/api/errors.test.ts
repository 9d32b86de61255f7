import { describe, expect, it } from 'vitest';
import { ApiError, fieldOf, toApiError } from './errors';

describe('toApiError', () => {
  it('keeps the service message for plain errors', () => {
    const e = toApiError(409, { detail: 'a project with key "demo" already exists' });
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(409);
    expect(e.message).toBe('a project with key "demo" already exists');
  });

  it('groups 422 messages by field', () => {
    const e = toApiError(422, {
      detail: [
        { loc: ['body', 'frame_rate'], msg: 'must be one of 23.976, 24', type: 'enum' },
        { loc: ['body', 'start_timecode'], msg: 'too long', type: 'too_big' },
        { loc: ['body'], msg: 'drop frame needs 29.97 or 59.94', type: 'custom' },
      ],
    });
    expect(e.fields).toEqual({
      frame_rate: ['must be one of 23.976, 24'],
      start_timecode: ['too long'],
      _: ['drop frame needs 29.97 or 59.94'],
    });
    expect(e.message).toContain('frame_rate: must be one of 23.976, 24');
  });

  it('reads the /v1/audio error envelope', () => {
    expect(
      toApiError(400, { error: { message: 'bad model', type: 'x', param: 'model', code: 'y' } }).message,
    ).toBe('bad model');
  });

  it('falls back to a status message when the body says nothing', () => {
    expect(toApiError(401, null).message).toMatch(/sign-in link/);
    expect(toApiError(503, 'oops').message).toMatch(/503/);
  });
});

describe('fieldOf', () => {
  it('drops the location prefix and joins nested paths', () => {
    expect(fieldOf(['body', 'tape'])).toBe('tape');
    expect(fieldOf(['query', 'limit'])).toBe('limit');
    expect(fieldOf(['body', 'items', 0, 'name'])).toBe('items.0.name');
    expect(fieldOf([])).toBe('_');
  });
});
