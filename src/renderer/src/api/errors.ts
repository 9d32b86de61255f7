/**
 * The service's error bodies turned into one error type the UI can show: a message for banners and,
 * for 422s, the API's messages per field so forms can show them next to the inputs.
 */
export interface ValidationEntry {
  loc: (string | number)[];
  msg: string;
  type?: string;
  input?: unknown;
  ctx?: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Field name (last part of loc) → messages. Empty unless the service sent validation details. */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Field a validation entry is about: the loc without its "body"/"query"/"path" prefix. */
export function fieldOf(loc: (string | number)[]): string {
  const parts = loc.filter((p, i) => !(i === 0 && (p === 'body' || p === 'query' || p === 'path')));
  return parts.length ? parts.map(String).join('.') : '_';
}

function statusText(status: number): string {
  if (status === 401) return 'Not signed in: open the sign-in link printed by the service';
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 413) return 'The file is too large for the service';
  if (status === 415) return 'The service cannot read this kind of file';
  if (status >= 500) return `The service failed (HTTP ${status})`;
  return `Request failed (HTTP ${status})`;
}

/** Build an ApiError from a status and the parsed body (or null when it was not JSON). */
export function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const detail = (body as { detail?: unknown }).detail;
    if (typeof detail === 'string' && detail) return new ApiError(status, detail);
    if (Array.isArray(detail)) {
      const fields: Record<string, string[]> = {};
      const lines: string[] = [];
      for (const entry of detail as ValidationEntry[]) {
        if (!entry || typeof entry.msg !== 'string') continue;
        const field = fieldOf(Array.isArray(entry.loc) ? entry.loc : []);
        (fields[field] ??= []).push(entry.msg);
        lines.push(field === '_' ? entry.msg : `${field}: ${entry.msg}`);
      }
      if (lines.length) return new ApiError(status, lines.join('; '), fields);
    }
    const envelope = (body as { error?: { message?: unknown } }).error;
    if (envelope && typeof envelope.message === 'string') return new ApiError(status, envelope.message);
  }
  return new ApiError(status, statusText(status));
}

/** A message for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
