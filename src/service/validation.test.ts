import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toValidationIssues } from './validation';

describe('toValidationIssues', () => {
  const Query = z.object({ format: z.enum(['srt', 'vtt']) });

  it('calls an absent enum field missing, as pydantic does', () => {
    const result = Query.safeParse({});
    expect(result.success).toBe(false);
    expect(toValidationIssues(result.error!.issues, 'query', {})).toEqual([{ loc: ['query', 'format'], msg: 'Field required', type: 'missing', input: {}, ctx: {} }]);
  });

  it('calls a present wrong value a literal error naming the choices', () => {
    const result = Query.safeParse({ format: 'docx' });
    expect(toValidationIssues(result.error!.issues, 'query', { format: 'docx' })).toEqual([
      { loc: ['query', 'format'], msg: "Input should be 'srt' or 'vtt'", type: 'literal_error', input: 'docx', ctx: { expected: "'srt' or 'vtt'" } },
    ]);
  });
});

describe('bounds of whole numbers', () => {
  const Hint = z.object({ max_speakers: z.coerce.number().int().min(1).max(32), offset: z.coerce.number().int().min(0) });

  it('reports only the documented bound of a huge number, once', () => {
    for (const value of ['1e300', '99999999999999999999', '9007199254740993']) {
      const result = Hint.safeParse({ max_speakers: value, offset: 0 }, { reportInput: true });
      const issues = toValidationIssues(result.error!.issues, 'body', { max_speakers: value });
      expect(issues, value).toEqual([expect.objectContaining({ loc: ['body', 'max_speakers'], msg: 'Input should be less than or equal to 32', ctx: { le: 32 } })]);
    }
    const low = Hint.safeParse({ max_speakers: '-1e300', offset: 0 }, { reportInput: true });
    expect(toValidationIssues(low.error!.issues, 'body', {})).toEqual([expect.objectContaining({ msg: 'Input should be greater than or equal to 1' })]);
  });

  it('keeps the safe-integer bound where the field has no other upper bound', () => {
    const result = Hint.safeParse({ max_speakers: 2, offset: '1e300' }, { reportInput: true });
    expect(toValidationIssues(result.error!.issues, 'query', {})).toEqual([
      expect.objectContaining({ loc: ['query', 'offset'], msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}` }),
    ]);
  });
});
