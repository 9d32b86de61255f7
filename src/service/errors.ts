import type { ValidationIssue } from '../shared/schemas';

/**
 * The service's own errors, in the domain's words. Domain code (transcription, analysis, dubbing, speakers,
 * storage…) throws these and knows nothing of HTTP; `http/errors.ts` maps each kind to a status and to each
 * prefix's error shape in one place, and the job runner shows their messages to users.
 */
export type ServiceErrorKind =
  /** The thing asked for does not exist (or is not visible to the caller). */
  | 'not_found'
  /** The request is valid but the state does not allow it now (not ready, changed meanwhile, running). */
  | 'conflict'
  /** A request that names something unknown as a whole (e.g. an unknown model), not one located field. */
  | 'bad_request'
  /** The media sent is not something that can be decoded or stored. */
  | 'unsupported_media'
  /** Well-formed input whose content cannot be used (a recording with nothing after its count-in). */
  | 'unprocessable'
  /** The input is larger than what can be stored or processed. */
  | 'too_large'
  /** The disk or store is full: nothing was stored. */
  | 'storage_full'
  /** Something the service depends on elsewhere failed (a download, a remote store). */
  | 'upstream_failed'
  /** A capability this installation lacks (an engine not installed): the request is right, the machine cannot. */
  | 'unavailable'
  /** Work done for the request (by a worker, say) failed; the message says why, as far as a user may know. */
  | 'processing_failed';

export interface ServiceErrorDetail {
  /** A stable machine-readable code (OpenAI's `code`). */
  code?: string;
  /** The input field the error is about (OpenAI's `param`). */
  param?: string | null;
  /** When the client may try again (an outage): HTTP's Retry-After. */
  retryAfterSeconds?: number;
}

/** An error whose message is safe to show to a user or a client. */
export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly detail: ServiceErrorDetail = {},
  ) {
    super(message);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('not_found', message, detail);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('conflict', message, detail);
  }
}

export class BadRequestError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('bad_request', message, detail);
  }
}

export class UnsupportedMediaError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('unsupported_media', message, detail);
  }
}

export class UnprocessableError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('unprocessable', message, detail);
  }
}

export class TooLargeError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('too_large', message, detail);
  }
}

export class StorageFullError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('storage_full', message, detail);
  }
}

export class UpstreamError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('upstream_failed', message, detail);
  }
}

export class UnavailableError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('unavailable', message, detail);
  }
}

export class ProcessingFailedError extends ServiceError {
  constructor(message: string, detail?: ServiceErrorDetail) {
    super('processing_failed', message, detail);
  }
}

/**
 * Invalid input, each fault located (`['body', 'lines', 3, 'end']`): the locations are part of the contract,
 * so a client can point at the field, whatever the transport renders them as.
 */
export class InvalidInputError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

/** One located fault, in the shape clients of FastAPI services already parse. */
export function issue(loc: Array<string | number>, msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue {
  return { loc, msg, type, input: input === undefined ? null : input, ctx };
}

/** The message a user may be shown for an error, or null when it is internal (and must not leak). */
export function userMessage(error: unknown): string | null {
  return error instanceof ServiceError || error instanceof InvalidInputError ? error.message : null;
}
