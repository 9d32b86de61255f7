import { InvalidInputError, ServiceError, type ServiceErrorKind } from '../errors';

/** An error of the HTTP layer itself (authentication, unknown routes, malformed requests): a status and a safe message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { code?: string; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

/** The one place a domain error's kind becomes a status. */
const STATUS_OF_KIND: Record<ServiceErrorKind, number> = {
  not_found: 404,
  conflict: 409,
  bad_request: 400,
  unsupported_media: 415,
  unprocessable: 422,
  too_large: 413,
  storage_full: 507,
  upstream_failed: 502,
  unavailable: 503,
  processing_failed: 500,
};

/** A domain error as the HTTP error it is shown as; anything else is internal (500, no detail leaked). */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ServiceError) {
    const { code, param, retryAfterSeconds } = error.detail;
    const headers = retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(retryAfterSeconds) };
    return new HttpError(STATUS_OF_KIND[error.kind], error.message, { code, param, headers });
  }
  return new HttpError(500, 'Internal server error.', { code: 'internal_error' });
}

export type ErrorStyle = 'openai' | 'fastapi';

/** OpenAI-compatible routes answer in OpenAI's envelope; everything else in FastAPI's. */
export function errorStyleFor(url: string): ErrorStyle {
  // The path alone decides: a query string (or a fragment) never changes the style.
  const path = url.split(/[?#]/, 1)[0]!;
  return /^\/v1\/(audio|models)(\/|$)/.test(path) ? 'openai' : 'fastapi';
}

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function renderError(error: unknown, style: ErrorStyle): RenderedError {
  if (error instanceof InvalidInputError) {
    if (style === 'fastapi') return { status: 422, body: { detail: error.issues }, headers: {} };
    const first = error.issues[0];
    const param = first ? first.loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').join('.') : null;
    return {
      status: 400,
      body: {
        error: {
          message: error.issues.map((i) => `${i.loc.slice(1).join('.') || i.loc.join('.')}: ${i.msg}`).join('; '),
          type: 'invalid_request_error',
          param: param || null,
          code: first?.type === 'missing' ? 'missing_required_parameter' : 'invalid_value',
        },
      },
      headers: {},
    };
  }
  const http = toHttpError(error);
  const status = http.status;
  const headers = http.options.headers ?? {};
  if (style === 'fastapi') return { status, body: { detail: http.message }, headers };
  return {
    status,
    body: {
      error: {
        message: http.message,
        type: status >= 500 ? 'server_error' : (OPENAI_TYPES[status] ?? 'invalid_request_error'),
        param: http.options.param ?? null,
        code: http.options.code ?? null,
      },
    },
    headers,
  };
}
