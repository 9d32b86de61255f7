import type { ValidationIssue } from '../../shared/schemas';

/** An error with an HTTP status whose message is safe to show to a client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { code?: string; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

/** Invalid input, already in FastAPI's shape; under /v1/audio it is rendered as a 400 envelope. */
export class ValidationFailure extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export type ErrorStyle = 'openai' | 'fastapi';

/** OpenAI-compatible routes answer in OpenAI's envelope; everything else in FastAPI's. */
export function errorStyleFor(path: string): ErrorStyle {
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
  if (error instanceof ValidationFailure) {
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
  const http = error instanceof HttpError ? error : new HttpError(500, 'Internal server error.', { code: 'internal_error' });
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
