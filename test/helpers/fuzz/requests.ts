import fc from 'fast-check';

/**
 * Requests derived from the service's own OpenAPI document: every operation, with its path parameters,
 * query, JSON body or multipart parts filled with well-formed, boundary and malformed values.
 */

export interface FuzzPart {
  name: string;
  value?: string;
  file?: Buffer;
  filename?: string;
  type?: string;
}

export interface FuzzRequest {
  /** The operation it was derived from, e.g. `POST /v1/speech/transcriptions`. */
  operation: string;
  method: string;
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** How the request was built (for the failure report and the regression corpus). */
  notes: string[];
  /** `limited`: a key limited to another project, which must see nothing of the seeded one. */
  auth: 'key' | 'none' | 'wrong' | 'limited';
}

type Schema = Record<string, any>;
export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface FuzzFixtures {
  /** Real values for path parameters by name (ids of seeded sessions, dubs, lines …). */
  ids: Record<string, string[]>;
  /** A short valid recording (WAV). */
  audio: Buffer;
  key: string;
  /** A key limited to a project other than the seeded one (absent: not exercised). */
  limitedKey?: string;
  /** Ids of the seeded project, recording and dub: a limited key's answers must never contain them. */
  foreignIds?: string[];
  /** The JSON body limit of the service. */
  jsonLimit: number;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export interface Operation {
  method: string;
  template: string;
  op: any;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method: method.toUpperCase(), template, op: item[method] });
  }
  return out;
}

function resolve(doc: OpenApiDoc, schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (typeof schema.$ref === 'string') return resolve(doc, doc.components?.schemas?.[schema.$ref.split('/').at(-1)!]);
  return schema;
}

// Values that have broken parsers elsewhere: traversal, encodings, control characters, unicode, sizes.
const NASTY_STRINGS = [
  '',
  ' ',
  '../../../../etc/passwd',
  '..\\..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '....//....//etc/passwd',
  '/etc/passwd',
  'a\u0000b',
  '\u0000',
  '\r\nX-Injected: 1',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '😀🎙️👩‍👩‍👧',
  '\ud800',
  '\uffff\ufffe',
  'null',
  'undefined',
  'true',
  '-1',
  '1e309',
  'NaN',
  '0x10',
  '{"a":1}',
  '[]',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${process.env}',
  '__proto__',
  'constructor',
  'x'.repeat(300),
];

const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('x'.repeat(70_000), 'é'.repeat(5000)),
);

const wrongTypeValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  nastyString,
);

/** A value for a JSON schema: usually valid, sometimes at a boundary, sometimes wrong. */
export function valueFor(doc: OpenApiDoc, raw: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (depth > 4) return fc.constant(null);
  const choices: Array<fc.Arbitrary<unknown>> = [];
  if (Array.isArray(schema.enum)) choices.push(fc.constantFrom(...schema.enum));
  if ('const' in schema) choices.push(fc.constant(schema.const));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) for (const sub of schema[key]) choices.push(valueFor(doc, sub, depth + 1));
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  for (const type of types) {
    switch (type) {
      case 'string': {
        const min = schema.minLength ?? 0;
        const max = Math.min(schema.maxLength ?? 60, 60);
        choices.push(fc.string({ minLength: Math.min(min, max), maxLength: max }));
        if (schema.example !== undefined) choices.push(fc.constant(schema.example));
        if (schema.maxLength !== undefined) choices.push(fc.constant('a'.repeat(schema.maxLength)), fc.constant('a'.repeat(schema.maxLength + 1)));
        if (schema.format === 'uuid') choices.push(fc.uuid());
        break;
      }
      case 'integer':
      case 'number': {
        const min = schema.minimum ?? -1e6;
        const max = Math.min(schema.maximum ?? 1e6, 1e9);
        choices.push(type === 'integer' ? fc.integer({ min: Math.max(min, -1e9), max }) : fc.double({ min, max, noNaN: true }));
        choices.push(fc.constantFrom(min, max, min - 1, max + 1, 0, -0, 2 ** 53, -(2 ** 53), 1e308, 0.5));
        break;
      }
      case 'boolean':
        choices.push(fc.boolean());
        break;
      case 'null':
        choices.push(fc.constant(null));
        break;
      case 'array':
        choices.push(fc.array(valueFor(doc, schema.items, depth + 1), { maxLength: 4 }));
        break;
      case 'object':
        choices.push(objectFor(doc, schema, depth + 1));
        break;
    }
  }
  if (choices.length === 0) choices.push(wrongTypeValue);
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...choices) }, { weight: 1, arbitrary: wrongTypeValue });
}

function objectFor(doc: OpenApiDoc, schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const names = Object.keys(props);
  if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), wrongTypeValue, { maxKeys: 3 });
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = valueFor(doc, props[name], depth);
  return fc
    .tuple(
      fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) }),
      // Sometimes drop a required field or add an unknown one.
      fc.option(fc.constantFrom(...names), { freq: 5 }),
      fc.option(fc.tuple(fc.constantFrom('extra', '__proto__', 'constructor', ''), wrongTypeValue), { freq: 6 }),
    )
    .map(([value, drop, extra]) => {
      const out: Record<string, unknown> = { ...value };
      if (drop !== null) delete out[drop];
      if (extra !== null) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, configurable: true, writable: true });
      return out;
    });
}

/** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD, as a browser would send them). */
function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) out += /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

function pathValue(name: string, schema: Schema, fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const known = fixtures.ids[name] ?? [];
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<string> }> = [
    { weight: 2, arbitrary: nastyString.map((s) => percentEncode(s.slice(0, 3000))) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '..%2f..%2fetc', '%00', 'a%2Fb', '%ZZ', '%c0%ae%c0%ae') },
  ];
  if (known.length) choices.push({ weight: 6, arbitrary: fc.constantFrom(...known) });
  if (Array.isArray(resolve({ paths: {} }, schema).enum)) choices.push({ weight: 2, arbitrary: fc.constantFrom(...schema.enum.map(String)) });
  return fc.oneof(...choices);
}

function queryValue(doc: OpenApiDoc, schema: Schema): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: valueFor(doc, schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 3 }) },
    { weight: 1, arbitrary: nastyString },
  );
}

const textAsWav = Buffer.from('This is a text file, not a recording.\n');
const wavHeaderOnly = (audio: Buffer) => audio.subarray(0, 44);

function fileValue(fixtures: FuzzFixtures): fc.Arbitrary<{ file: Buffer; filename: string; type: string; note: string }> {
  const files = fc.constantFrom(
    { file: fixtures.audio, note: 'valid wav' },
    { file: Buffer.alloc(0), note: 'empty file' },
    { file: textAsWav, note: 'text named .wav' },
    { file: fixtures.audio.subarray(0, Math.floor(fixtures.audio.length / 3)), note: 'truncated wav' },
    { file: wavHeaderOnly(fixtures.audio), note: 'header only' },
    { file: Buffer.from([0xff, 0xfb, 0x90, 0x00, 1, 2, 3]), note: 'mp3 sync then junk' },
    { file: Buffer.from('fLaC\u0000\u0000\u0000\u0022'), note: 'truncated flac' },
  );
  const names = fc.oneof(
    fc.constantFrom('take.wav', 'take.flac', '../../evil.wav', '..\\..\\evil.wav', '/etc/passwd', '', '.wav', 'a\u0000b.wav', '😀.wav', 'x'.repeat(500) + '.wav', 'take.wav;.exe'),
    fc.string({ maxLength: 20 }),
  );
  const types = fc.constantFrom('audio/wav', 'application/octet-stream', 'text/plain', 'audio/flac', '');
  return fc.tuple(files, names, types).map(([f, filename, type]) => ({ file: f.file, filename, type, note: f.note }));
}

/** Builds a multipart body by hand so parts can be duplicated, dropped, mislabelled or cut short. */
export function multipart(parts: FuzzPart[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.file !== undefined) head += `; filename="${part.filename ?? 'file.bin'}"${part.type ? `\r\nContent-Type: ${part.type}` : ''}`;
    chunks.push(Buffer.from(head + '\r\n\r\n'), part.file ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function multipartRequest(doc: OpenApiDoc, schema: Schema, fixtures: FuzzFixtures) {
  const props: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const partArbs = Object.entries(props).map(([name, prop]) => {
    const resolved = resolve(doc, prop);
    const isFile = resolved.format === 'binary';
    const value: fc.Arbitrary<FuzzPart[]> = isFile
      ? fileValue(fixtures).map((f) => [{ name, file: f.file, filename: f.filename, type: f.type }])
      : resolved.type === 'array'
        ? fc.array(valueFor(doc, resolved.items).map((v) => ({ name, value: typeof v === 'string' ? v : JSON.stringify(v) ?? '' })), { maxLength: 3 })
        : valueFor(doc, resolved).map((v) => [{ name, value: typeof v === 'string' ? v : JSON.stringify(v) ?? '' }]);
    // Optional parts are often left out; required ones sometimes (missing part).
    return fc.option(value, { freq: required.has(name) ? 12 : 2 }).map((v) => v ?? []);
  });
  return fc
    .tuple(
      fc.tuple(...partArbs).map((lists) => lists.flat()),
      fc.constantFrom('none', 'none', 'none', 'duplicate', 'truncate', 'bad-boundary', 'no-boundary', 'wrong-type', 'extra-part', 'shuffle'),
      fc.nat(),
    )
    .map(([parts, twist, n]) => {
      const boundary = `fuzz${n.toString(16)}`;
      let list = parts;
      if (twist === 'duplicate' && list.length) list = [...list, list[n % list.length]!];
      if (twist === 'extra-part') list = [...list, { name: 'unexpected', value: 'x' }, { name: '', value: 'y' }];
      if (twist === 'shuffle') list = [...list].reverse();
      let body = multipart(list, boundary);
      let contentType = `multipart/form-data; boundary=${boundary}`;
      if (twist === 'truncate') body = body.subarray(0, Math.max(0, body.length - 1 - (n % Math.max(1, body.length))));
      if (twist === 'bad-boundary') contentType = 'multipart/form-data; boundary=other';
      if (twist === 'no-boundary') contentType = 'multipart/form-data';
      if (twist === 'wrong-type') contentType = 'application/json';
      const notes = [`multipart ${twist}: ${list.map((p) => `${p.name}${p.file ? `=<${p.file.length} bytes ${p.filename}>` : `=${JSON.stringify((p.value ?? '').slice(0, 40))}`}`).join(', ')}`];
      return { body, contentType, notes };
    });
}

function jsonRequest(doc: OpenApiDoc, schema: Schema, fixtures: FuzzFixtures) {
  return fc.oneof(
    { weight: 8, arbitrary: valueFor(doc, schema).map((v) => ({ body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json', notes: ['json'] })) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'nul', '\u0000', '[1,2', '"unterminated', '{"__proto__":{"admin":true}}', '').map((raw) => ({ body: Buffer.from(raw), contentType: 'application/json', notes: ['malformed json'] })) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1').map((type) => ({ body: Buffer.from('{"a":1}'), contentType: type, notes: [`wrong content type ${type}`] })) },
    { weight: 1, arbitrary: fc.constant(null).map(() => ({ body: Buffer.from(`{"input":"${'a'.repeat(fixtures.jsonLimit + 16)}"}`), contentType: 'application/json', notes: ['json over the limit'] })) },
  );
}

/** All requests of one operation. */
export function requestsFor(doc: OpenApiDoc, operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const params: any[] = operation.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const pathArb = fc.tuple(...pathParams.map((p) => pathValue(p.name, p.schema ?? {}, fixtures)));
  const queryArb = fc.tuple(...queryParams.map((p) => queryValue(doc, p.schema ?? {})));
  const content = operation.op.requestBody?.content ?? {};
  const bodyArb: fc.Arbitrary<{ body?: Buffer; contentType?: string; notes: string[] }> = content['multipart/form-data']
    ? multipartRequest(doc, resolve(doc, content['multipart/form-data'].schema), fixtures)
    : content['application/json']
      ? jsonRequest(doc, content['application/json'].schema, fixtures)
      : fc.oneof(
          { weight: 6, arbitrary: fc.constant<{ body?: Buffer; contentType?: string; notes: string[] }>({ notes: [] }) },
          { weight: 1, arbitrary: fc.constant<{ body?: Buffer; contentType?: string; notes: string[] }>({ body: Buffer.from('{"unexpected":true}'), contentType: 'application/json', notes: ['unexpected body'] }) },
        );
  const authArb = fc.constantFrom<FuzzRequest['auth']>('key', 'key', 'key', 'key', 'key', 'key', 'key', 'key', 'none', 'wrong', ...(fixtures.limitedKey ? (['limited', 'limited'] as const) : []));
  // OpenAI-style routes also get queries they do not declare: the error style must follow the path alone.
  const strayArb = /^\/v1\/(audio|models)(\/|$)/.test(operation.template)
    ? fc.option(fc.tuple(fc.constantFrom('x', 'format', 'detail', 'api-version', 'q'), fc.constantFrom('1', '', 'json', '%00', '../')), { freq: 2 })
    : fc.constant(null);
  return fc.tuple(pathArb, queryArb, bodyArb, authArb, strayArb).map(([pathValues, queryValues, body, auth, stray]) => {
    let path = operation.template;
    pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, pathValues[i]!)));
    const query = new URLSearchParams();
    queryParams.forEach((p, i) => {
      const v = queryValues[i];
      if (Array.isArray(v)) for (const item of v) query.append(p.name, item);
      else if (v !== undefined) query.append(p.name, v);
    });
    if (stray) query.append(stray[0], stray[1]);
    const qs = query.toString();
    const headers: Record<string, string> = {};
    if (auth === 'key') headers.Authorization = `Bearer ${fixtures.key}`;
    if (auth === 'wrong') headers['X-API-Key'] = 'tl_wrongwrongwrongwrongwrongwrongwrong12';
    if (auth === 'limited') headers['X-API-Key'] = fixtures.limitedKey!;
    if (body.contentType) headers['Content-Type'] = body.contentType;
    return {
      operation: `${operation.method} ${operation.template}`,
      method: operation.method,
      path: qs ? `${path}?${qs}` : path,
      headers,
      body: body.body,
      notes: stray ? [...body.notes, `stray query ${stray[0]}=${stray[1]}`] : body.notes,
      auth,
    };
  });
}

/** One arbitrary over every operation of the document (each equally likely). */
export function contractRequests(doc: OpenApiDoc, fixtures: FuzzFixtures, skip: (op: Operation) => boolean = () => false): fc.Arbitrary<FuzzRequest> {
  const ops = operationsOf(doc).filter((op) => !skip(op));
  return fc.oneof(...ops.map((op) => requestsFor(doc, op, fixtures)));
}
