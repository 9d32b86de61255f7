import type { FuzzRequest } from './requests';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Routes that answer without a key: health, readiness and metrics (a scraper on loopback needs none unless
 * TAKELINE_METRICS_TOKEN is set), and the two signed audio addresses.
 */
export function isOpenRoute(path: string): boolean {
  const bare = path.split('?')[0]!;
  return bare === '/healthz' || bare === '/readyz' || bare === '/metrics' || /^\/v1\/speech\/transcriptions\/[^/]+\/(audio\/original|dubs\/[^/]+\/revisions\/[^/]+\/file)$/.test(bare);
}

export function isOpenAiRoute(path: string): boolean {
  return /^\/v1\/(audio|models)(\/|$|\?)/.test(path);
}

/** 5xx the contract documents for upstream trouble (a Whisper download server, a full disk). */
function documentedServerError(req: FuzzRequest, status: number): boolean {
  return req.path.startsWith('/v1/speech/models/whisper/') && (status === 502 || status === 507);
}

// A stack frame, a source or data path, or an error class name leaking from a catch-all handler.
const LEAKS = [/\n\s+at\s/, /\bat [\w.<>]+ \(/, /node_modules/, /\/(work|tmp|home|root|usr)\//, /\.[cm]?[jt]s:\d+/, /\b(TypeError|ReferenceError|SyntaxError|RangeError)\b/, /SQLITE_/, /\bENOENT\b|\bEACCES\b|\bEISDIR\b/];

/** Everything wrong with one answer (empty when it is fine). */
export function problemsOf(req: FuzzRequest, answer: Answer, secrets: string[], foreignIds: readonly string[] = []): string[] {
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 500 && !documentedServerError(req, status)) problems.push(`status ${status}`);
  const text = answer.body.toString('utf8');
  const type = String(answer.headers['content-type'] ?? '');
  const isJson = type.startsWith('application/json');
  // Only error answers can leak (successful ones may name folders on purpose, e.g. the models folder).
  if (status >= 400) {
    for (const pattern of LEAKS) if (pattern.test(text)) problems.push(`leaks ${pattern}: ${text.slice(0, 200)}`);
  }
  for (const secret of secrets) if (secret && text.includes(secret)) problems.push('echoes a secret');
  if (req.auth !== 'key' && req.auth !== 'limited' && !isOpenRoute(req.path) && status !== 401 && status !== 403 && status !== 431) problems.push(`answered ${status} without a valid key`);
  if (req.auth === 'limited' && !isOpenRoute(req.path)) {
    // A key limited to another project: nothing of the seeded project may be read, listed or changed.
    for (const id of foreignIds) {
      // An id the request itself carries may come back (e.g. the unknown-route message names the path):
      // that tells the client nothing it did not send. One it did not send is a leak.
      const sent = req.path.includes(id) || (req.body?.includes(id) ?? false);
      if (text.includes(id) && !sent) problems.push(`a limited key was shown ${id} of another project`);
      else if (status < 300 && sent) problems.push(`a limited key got ${status} for another project's ${id}`);
    }
  }
  if (status >= 400) {
    if (!isJson) problems.push(`error answer is ${type || 'untyped'}, not JSON`);
    else {
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('error body is not valid JSON');
      }
      if (body !== undefined) {
        const shape = isOpenAiRoute(req.path) ? openAiShape(body) : detailShape(body);
        if (shape) problems.push(shape);
      }
    }
  }
  return problems;
}

function openAiShape(body: any): string | null {
  const e = body?.error;
  if (!e || typeof e !== 'object' || Object.keys(body).length !== 1) return `not the OpenAI error envelope: ${JSON.stringify(body).slice(0, 200)}`;
  const keys = Object.keys(e).sort().join(',');
  if (keys !== 'code,message,param,type') return `envelope keys ${keys}`;
  if (typeof e.message !== 'string' || !e.message || typeof e.type !== 'string') return 'envelope message/type not strings';
  if (e.param !== null && typeof e.param !== 'string') return 'envelope param not string|null';
  if (e.code !== null && typeof e.code !== 'string') return 'envelope code not string|null';
  return null;
}

function detailShape(body: any): string | null {
  if (!body || typeof body !== 'object' || !('detail' in body)) return `not the detail shape: ${JSON.stringify(body).slice(0, 200)}`;
  const d = body.detail;
  if (typeof d === 'string') return d ? null : 'empty detail';
  if (!Array.isArray(d) || d.length === 0) return 'detail neither a message nor a list';
  for (const issue of d) {
    if (!Array.isArray(issue?.loc) || typeof issue.msg !== 'string' || typeof issue.type !== 'string') return `malformed issue ${JSON.stringify(issue).slice(0, 200)}`;
    if (!['body', 'query', 'path'].includes(issue.loc[0])) return `loc starts with ${issue.loc[0]}`;
  }
  return null;
}
