import type { z } from 'zod';
import type { ValidationIssue } from '../shared/schemas';
import { InvalidInputError } from './errors';

type Location = 'body' | 'query' | 'path';

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from'],
  array: ['list_type', 'Input should be a valid list'],
};

function quoteList(values: ReadonlyArray<unknown>): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

/** zod's own bound on every `.int()` (the safe-integer range): not a bound a schema documents. */
function isSafeIntegerBound(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'too_big') return issue.origin === 'int' && Number(issue.maximum) === Number.MAX_SAFE_INTEGER;
  if (issue.code === 'too_small') return issue.origin === 'int' && Number(issue.minimum) === Number.MIN_SAFE_INTEGER;
  return false;
}

const pathKey = (issue: z.core.$ZodIssue) => JSON.stringify(issue.path.map(String));

/**
 * A huge whole number breaks both zod's safe-integer bound and the field's own (`max_speakers` ≤ 32):
 * only the field's documented bound is reported, one message per field. The safe-integer bound stays where
 * it is the only one.
 */
function withoutInternalBounds(issues: ReadonlyArray<z.core.$ZodIssue>): z.core.$ZodIssue[] {
  const bounded = new Set(issues.filter((i) => (i.code === 'too_big' || i.code === 'too_small') && !isSafeIntegerBound(i)).map(pathKey));
  return issues.filter((i) => !(isSafeIntegerBound(i) && bounded.has(pathKey(i))));
}

/** Turns zod issues into FastAPI/pydantic-style entries, which clients of FastAPI services already parse. */
export function toValidationIssues(issues: ReadonlyArray<z.core.$ZodIssue>, location: Location | null, root: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of withoutInternalBounds(issues)) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const loc = location === null ? path : [location, ...path];
    const input = 'input' in issue ? issue.input : valueAt(root, issue.path);
    switch (issue.code) {
      case 'invalid_type': {
        if (input === undefined) {
          out.push({ loc, msg: 'Field required', type: 'missing', input: valueAt(root, issue.path.slice(0, -1)) ?? null, ctx: {} });
        } else {
          const [type, msg] = TYPE_NAMES[issue.expected] ?? ['type_error', `Input should be a valid ${issue.expected}`];
          out.push({ loc, msg, type, input, ctx: {} });
        }
        break;
      }
      case 'too_big': {
        const max = Number(issue.maximum);
        if (issue.origin === 'string') {
          out.push({ loc, msg: `String should have at most ${max} characters`, type: 'string_too_long', input, ctx: { max_length: max } });
        } else if (issue.origin === 'array') {
          out.push({ loc, msg: `List should have at most ${max} items`, type: 'too_long', input, ctx: { max_length: max } });
        } else {
          out.push({ loc, msg: `Input should be less than or equal to ${max}`, type: 'less_than_equal', input, ctx: { le: max } });
        }
        break;
      }
      case 'too_small': {
        const min = Number(issue.minimum);
        if (issue.origin === 'string') {
          out.push({ loc, msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`, type: 'string_too_short', input, ctx: { min_length: min } });
        } else if (issue.origin === 'array') {
          out.push({ loc, msg: `List should have at least ${min} items`, type: 'too_short', input, ctx: { min_length: min } });
        } else {
          out.push({ loc, msg: `Input should be greater than or equal to ${min}`, type: 'greater_than_equal', input, ctx: { ge: min } });
        }
        break;
      }
      case 'invalid_format': {
        const pattern = 'pattern' in issue && issue.pattern ? String(issue.pattern) : issue.format;
        const msg = issue.message && !issue.message.startsWith('Invalid') ? `String ${issue.message}` : `String should match pattern '${pattern}'`;
        out.push({ loc, msg, type: issue.format === 'regex' ? 'string_pattern_mismatch' : `${issue.format}_parsing`, input, ctx: { pattern } });
        break;
      }
      case 'invalid_value':
        // zod reports an absent enum as a wrong value; pydantic (and a client) call it missing.
        if (input === undefined) {
          out.push({ loc, msg: 'Field required', type: 'missing', input: valueAt(root, issue.path.slice(0, -1)) ?? null, ctx: {} });
        } else {
          out.push({ loc, msg: `Input should be ${quoteList(issue.values)}`, type: 'literal_error', input, ctx: { expected: quoteList(issue.values) } });
        }
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: valueAt(root, [...issue.path, key]), ctx: {} });
        }
        break;
      case 'custom': {
        const params = (issue.params ?? {}) as { type?: string; ctx?: Record<string, unknown> };
        out.push({ loc, msg: issue.message, type: params.type ?? 'value_error', input, ctx: params.ctx ?? {} });
        break;
      }
      default:
        out.push({ loc, msg: issue.message, type: 'value_error', input: input ?? null, ctx: {} });
    }
  }
  return out;
}

/**
 * Parses input against a schema, throwing a InvalidInputError that names each faulty field: after where the
 * request carried it (`location`), or the field alone (null) when domain code parses and the route adds where.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: Location | null): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new InvalidInputError(toValidationIssues(result.error.issues, location, value));
}
