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
