import type { ValidationIssue } from '../../shared/schemas';
import { InvalidInputError, ServiceError, type ServiceErrorDetail, type ServiceErrorKind } from '../errors';

/**
 * A domain error as a job's result records it (JSON), so the process waiting on the job (a team's API node) throws
 * the same error and its client gets the same status and body as from the desktop: the kind and detail of a
 * `ServiceError`, or the located faults of an `InvalidInputError`.
 */
export type RecordedError = { kind: ServiceErrorKind; message: string; detail: ServiceErrorDetail } | { issues: ValidationIssue[] };

/** The record of a domain error, or null for anything else (internal: its message must not reach a client). */
export function recordError(error: unknown): RecordedError | null {
  if (error instanceof InvalidInputError) return { issues: error.issues };
  if (error instanceof ServiceError) return { kind: error.kind, message: error.message, detail: error.detail };
  return null;
}

/** The error a record stands for, to be thrown where the job is waited on. */
export function recordedError(recorded: RecordedError): ServiceError | InvalidInputError {
  if ('issues' in recorded) return new InvalidInputError(recorded.issues);
  return new ServiceError(recorded.kind, recorded.message, recorded.detail);
}
