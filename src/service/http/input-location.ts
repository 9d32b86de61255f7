import type { ErrorRequestHandler } from 'express';
import type { ValidationIssue } from '../../shared/schemas';
import { InvalidInputError } from '../errors';

/** Where a request carries its input; the first part of every located fault (`['body', 'lines', 3, 'end']`). */
export type InputLocation = 'body' | 'query' | 'path';

const LOCATIONS: ReadonlySet<unknown> = new Set<InputLocation>(['body', 'query', 'path']);

const located = (fault: ValidationIssue) => LOCATIONS.has(fault.loc[0]);

/**
 * Domain code names a faulty field by its path in the input alone (`['lines', 3, 'end']`); the HTTP answer
 * says where the request carried it. Faults already located (the route's own parsing) are left as they are.
 */
export function locateInput(error: unknown, where: InputLocation): unknown {
  if (!(error instanceof InvalidInputError) || error.issues.every(located)) return error;
  return new InvalidInputError(error.issues.map((fault) => (located(fault) ? fault : { ...fault, loc: [where, ...fault.loc] })));
}

/** A router's last handler: the domain's input faults raised by its routes are about the request's `where`. */
export function inputIn(where: InputLocation): ErrorRequestHandler {
  return (error, _req, _res, next) => next(locateInput(error, where));
}

/** One call whose input came from elsewhere than the rest of its router's (an export's range, from the query). */
export async function withInputIn<T>(where: InputLocation, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw locateInput(error, where);
  }
}
