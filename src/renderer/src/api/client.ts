/**
 * The one typed client for the Takeline service. In Electron the preload's bridge supplies the API key
 * and every request carries `Authorization: Bearer <key>`; in a browser the HttpOnly session cookie set
 * by /auth/signin authenticates (credentials: 'same-origin'). The key is asked for per request and
 * never stored by the studio.
 */
import type { z } from 'zod';
import type { AnalysisDocument, AnalysisRun, AnalysisRunStarted } from '../../../shared/schemas/analysis';
import { ApiError, toApiError } from './errors';
import { whisperModelsApi, type WhisperModelsApi } from './whisper-models';
import { transcriptEditsApi, type TranscriptEditsApi } from './transcript-edits';
import { dubWorkflowApi, type DubWorkflowApi } from './dub-workflow';
import { cueSheetsApi, type CueSheetsApi } from './cue-sheets';
import { dubStemsApi, type DubStemsApi } from './dub-stems';
import { editorBasicsApi, type EditorBasicsApi } from './editor-basics';
import { rolesApi, type RolesApi } from './roles';
import { ConditionalDocuments } from './conditional-documents';
import type {
  AudioAddress,
  Dub,
  DubLine,
  DubRevision,
  Revoice,
  SpeechModel,
  ExportFormat,
  MediaInput,
  Media,
  Page,
  Peaks,
  Project,
  ProjectDetail,
  Session,
} from './types';

export interface ApiClientOptions {
  /** Origin of the service; '' means the page's own origin (the service serves the studio). */
  baseUrl?: string;
  /** Supplies the API key (Electron); absent in a browser, where the cookie is used. */
  apiKey?: () => Promise<string>;
}

export interface UploadHandle {
  promise: Promise<Session>;
  abort(): void;
}

export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

export interface ApiClient extends WhisperModelsApi, TranscriptEditsApi, DubWorkflowApi, DubStemsApi, EditorBasicsApi, CueSheetsApi, RolesApi {
  listProjects(signal?: AbortSignal): Promise<Project[]>;
  createProject(input: { key: string; name: string }): Promise<Project>;
  getProject(idOrKey: string, signal?: AbortSignal): Promise<ProjectDetail>;
  /** The project's vocabulary terms (names and jargon handed to the recognizer). */
  getVocabulary(project: string, signal?: AbortSignal): Promise<string[]>;
  setVocabulary(project: string, terms: string[]): Promise<string[]>;
  listSessions(
    project: string,
    page?: { limit?: number; offset?: number },
    signal?: AbortSignal,
  ): Promise<Page<Session>>;
  getSession(id: string, signal?: AbortSignal): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  /** Queues a failed transcription again (202 with the session). */
  retrySession(id: string): Promise<Session>;
  setMedia(id: string, media: MediaInput): Promise<Media>;
  getAudioAddress(id: string, signal?: AbortSignal): Promise<AudioAddress>;
  getPeaks(id: string, signal?: AbortSignal): Promise<Peaks>;
  /** An export; with `range`, only that part of the recording (seconds; the studio's in→out points). */
  exportFile(id: string, format: ExportFormat, range?: { start: number; end: number }): Promise<DownloadedFile>;
  /** The Analysis document: the newest run, or `runId`'s. */
  getIntelligence(id: string, options?: { runId?: string }, signal?: AbortSignal): Promise<AnalysisDocument>;
  /** Starts an analysis run (or returns the one already queued or running); 409 while the transcript is not complete. */
  startAnalysis(id: string): Promise<z.infer<typeof AnalysisRunStarted>>;
  listAnalysisRuns(id: string, signal?: AbortSignal): Promise<AnalysisRun[]>;
  upload(
    file: File,
    fields: { projectKey: string; projectName?: string; language?: string },
    onProgress: (fraction: number) => void,
  ): UploadHandle;
  listDubs(sessionId: string, signal?: AbortSignal): Promise<Dub[]>;
  getDub(sessionId: string, dubId: string, signal?: AbortSignal): Promise<Dub>;
  createDub(sessionId: string, parts: { file: File; background?: File; lines?: string; name?: string }): Promise<Dub>;
  updateDub(sessionId: string, dubId: string, patch: { name?: string; voices?: Record<string, string | null>; guide?: 'original' | null }): Promise<Dub>;
  listLines(sessionId: string, dubId: string, signal?: AbortSignal): Promise<DubLine[]>;
  updateLine(
    sessionId: string,
    dubId: string,
    lineId: number,
    patch: { text?: string; voice?: string | null; start?: number; end?: number },
  ): Promise<DubLine>;
  listDubRevisions(sessionId: string, dubId: string, signal?: AbortSignal): Promise<DubRevision[]>;
  getRevisionPeaks(sessionId: string, dubId: string, revision: number, signal?: AbortSignal): Promise<Peaks>;
  restoreDubRevision(sessionId: string, dubId: string, revision: number): Promise<Dub>;
  /** Starts a revoice (or a no-op); follow it with getRevoice until it is complete or failed. */
  revoice(sessionId: string, dubId: string): Promise<Revoice>;
  getRevoice(sessionId: string, dubId: string, revoiceId: string, signal?: AbortSignal): Promise<Revoice>;
  /** Installed speech models; voices are on the `tts` ones. */
  listSpeechModels(signal?: AbortSignal): Promise<SpeechModel[]>;
}

interface TakelineBridge {
  apiKey(): Promise<string>;
}

/** The preload's bridge when running in Electron, else undefined. */
export function electronBridge(): TakelineBridge | undefined {
  const bridge = (globalThis as { takeline?: Partial<TakelineBridge> }).takeline;
  return bridge && typeof bridge.apiKey === 'function' ? (bridge as TakelineBridge) : undefined;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The analysis schemas (and zod with them) load with the first analysis request, in their own chunk, so
 * the studio's first screen does not wait for them.
 */
const analysisSchemas = () => import('../../../shared/schemas/analysis');

/**
 * A body checked against the shared schema: the analysis document is large and read field by field, so a
 * service that answers with another shape fails here with the field named, not deep inside a component.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new ApiError(
    200,
    `The service sent ${what} the studio cannot read${where}: ${issue?.message ?? 'invalid'}`,
  );
}

/** File name from a Content-Disposition header (RFC 6266 filename* first), or a fallback. */
export function fileNameFromDisposition(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through to the plain parameter */
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(header);
  const name = plain?.[2] ?? plain?.[1]?.trim();
  return name || fallback;
}

export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const base = (options.baseUrl ?? '').replace(/\/$/, '');

  async function authHeaders(): Promise<Record<string, string>> {
    if (!options.apiKey) return {};
    return { Authorization: `Bearer ${await options.apiKey()}` };
  }

  async function request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = {
      Accept: 'application/json',
      ...(await authHeaders()),
      ...(init.headers as Record<string, string>),
    };
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, headers, credentials: 'same-origin' });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, 'Cannot reach the Takeline service');
    }
    // 304 only answers the If-None-Match of `polled` below.
    if (!res.ok && res.status !== 304) throw toApiError(res.status, await readBody(res));
    return res;
  }

  async function json<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await request(path, init);
    return (await readBody(res)) as T;
  }

  /**
   * GET of a document the studio polls (a session while it is transcribed, an analysis while it runs):
   * revalidated by ETag, so an unchanged one costs a 304 and hands back the copy already parsed.
   */
  const documents = new ConditionalDocuments();
  async function polled<T>(
    path: string,
    signal: AbortSignal | undefined,
    parse: (body: unknown) => T | Promise<T>,
  ): Promise<T> {
    const res = await request(path, { signal, headers: documents.headers(path) });
    if (res.status === 304) {
      const kept = documents.reuse<T>(path);
      if (kept !== undefined) return kept;
      // The copy was dropped meanwhile (more documents polled than kept): ask again, unconditionally.
      return parse(await readBody(await request(path, { signal })));
    }
    const value = await parse(await readBody(res));
    documents.remember(path, res.headers.get('ETag'), value);
    return value;
  }

  const enc = encodeURIComponent;
  const dubsPath = (sessionId: string) => `/v1/speech/transcriptions/${enc(sessionId)}/dubs`;
  const jsonBody = (method: string, body: unknown): RequestInit => ({
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
  });

  return {
    ...whisperModelsApi(json),
    ...transcriptEditsApi(json),
    ...dubWorkflowApi(json, async (path, fallback) => {
      const res = await request(path, { headers: { Accept: '*/*' } });
      return { blob: await res.blob(), fileName: fileNameFromDisposition(res.headers.get('Content-Disposition'), fallback) };
    }),
    ...cueSheetsApi(json, async (path, fallback) => {
      const res = await request(path, { headers: { Accept: '*/*' } });
      return { blob: await res.blob(), fileName: fileNameFromDisposition(res.headers.get('Content-Disposition'), fallback) };
    }),
    ...dubStemsApi(async (path, fallback) => {
      const res = await request(path, { headers: { Accept: 'application/zip' } });
      return { blob: await res.blob(), fileName: fileNameFromDisposition(res.headers.get('Content-Disposition'), fallback) };
    }),
    ...editorBasicsApi(json),
    ...rolesApi(json),
    listProjects: async (signal) => (await json<{ data: Project[] }>('/v1/speech/projects', { signal })).data,
    createProject: (input) => json<Project>('/v1/speech/projects', jsonBody('POST', input)),
    getProject: (idOrKey, signal) => json<ProjectDetail>(`/v1/speech/projects/${enc(idOrKey)}`, { signal }),
    getVocabulary: async (project, signal) =>
      (await json<{ terms: string[] }>(`/v1/speech/projects/${enc(project)}/vocabulary`, { signal })).terms,
    setVocabulary: async (project, terms) =>
      (await json<{ terms: string[] }>(`/v1/speech/projects/${enc(project)}/vocabulary`, jsonBody('PUT', { terms }))).terms,
    listSessions: (project, page = {}, signal) => {
      const q = new URLSearchParams({
        project,
        limit: String(page.limit ?? 50),
        offset: String(page.offset ?? 0),
      });
      return json<Page<Session>>(`/v1/speech/transcriptions?${q}`, { signal });
    },
    getSession: (id, signal) =>
      polled(`/v1/speech/transcriptions/${enc(id)}`, signal, (body) => body as Session),
    deleteSession: async (id) => {
      await request(`/v1/speech/transcriptions/${enc(id)}`, { method: 'DELETE' });
    },
    retrySession: (id) => json<Session>(`/v1/speech/transcriptions/${enc(id)}/retry`, { method: 'POST' }),
    setMedia: async (id, media) =>
      (await json<{ media: Media }>(`/v1/speech/transcriptions/${enc(id)}/media`, jsonBody('PATCH', media)))
        .media,
    getAudioAddress: (id, signal) =>
      json<AudioAddress>(`/v1/speech/transcriptions/${enc(id)}/audio`, { signal }),
    getPeaks: (id, signal) => json<Peaks>(`/v1/speech/transcriptions/${enc(id)}/peaks`, { signal }),
    getIntelligence: async (id, options = {}, signal) => {
      const q = options.runId ? `?run_id=${enc(options.runId)}` : '';
      return polled(`/v1/speech/transcriptions/${enc(id)}/intelligence${q}`, signal, async (body) =>
        parseBody((await analysisSchemas()).AnalysisDocument, body, 'an analysis'),
      );
    },
    startAnalysis: async (id) => {
      const body = await json<unknown>(`/v1/speech/transcriptions/${enc(id)}/intelligence`, {
        method: 'POST',
      });
      return parseBody((await analysisSchemas()).AnalysisRunStarted, body, 'an analysis run');
    },
    listAnalysisRuns: async (id, signal) => {
      const body = await json<unknown>(`/v1/speech/transcriptions/${enc(id)}/intelligence/runs`, { signal });
      return parseBody((await analysisSchemas()).AnalysisRunList, body, 'a list of analysis runs').data;
    },
    exportFile: async (id, format, range) => {
      const part = range ? `&start=${range.start.toFixed(3)}&end=${range.end.toFixed(3)}` : '';
      const res = await request(`/v1/speech/transcriptions/${enc(id)}/export?format=${format}${part}`, {
        headers: { Accept: '*/*' },
      });
      const fileName = fileNameFromDisposition(res.headers.get('Content-Disposition'), `${id}.${format}`);
      return { blob: await res.blob(), fileName };
    },
    listDubs: async (sid, signal) => (await json<{ data: Dub[] }>(`${dubsPath(sid)}`, { signal })).data,
    getDub: (sid, dubId, signal) => json<Dub>(`${dubsPath(sid)}/${enc(dubId)}`, { signal }),
    createDub: (sid, parts) => {
      const form = new FormData();
      form.append('file', parts.file, parts.file.name);
      if (parts.background) form.append('background', parts.background, parts.background.name);
      if (parts.lines !== undefined) form.append('lines', parts.lines);
      if (parts.name) form.append('name', parts.name);
      return json<Dub>(dubsPath(sid), { method: 'POST', body: form });
    },
    updateDub: (sid, dubId, patch) => json<Dub>(`${dubsPath(sid)}/${enc(dubId)}`, jsonBody('PATCH', patch)),
    listLines: async (sid, dubId, signal) =>
      (await json<{ data: DubLine[] }>(`${dubsPath(sid)}/${enc(dubId)}/lines`, { signal })).data,
    updateLine: (sid, dubId, lineId, patch) =>
      json<DubLine>(`${dubsPath(sid)}/${enc(dubId)}/lines/${lineId}`, jsonBody('PATCH', patch)),
    listDubRevisions: async (sid, dubId, signal) =>
      (await json<{ data: DubRevision[] }>(`${dubsPath(sid)}/${enc(dubId)}/revisions`, { signal })).data,
    getRevisionPeaks: (sid, dubId, revision, signal) =>
      json<Peaks>(`${dubsPath(sid)}/${enc(dubId)}/revisions/${revision}/peaks`, { signal }),
    restoreDubRevision: (sid, dubId, revision) =>
      json<Dub>(`${dubsPath(sid)}/${enc(dubId)}/revisions/${revision}/restore`, { method: 'POST' }),
    revoice: (sid, dubId) => json<Revoice>(`${dubsPath(sid)}/${enc(dubId)}/revoice?wait=0`, { method: 'POST' }),
    getRevoice: (sid, dubId, revoiceId, signal) =>
      json<Revoice>(`${dubsPath(sid)}/${enc(dubId)}/revoices/${enc(revoiceId)}`, { signal }),
    listSpeechModels: async (signal) => (await json<{ data: SpeechModel[] }>('/v1/audio/models', { signal })).data,
    upload: (file, fields, onProgress) => {
      // XMLHttpRequest, because fetch cannot report upload progress.
      const xhr = new XMLHttpRequest();
      const promise = (async () => {
        const headers = await authHeaders();
        return new Promise<Session>((resolve, reject) => {
          xhr.open('POST', `${base}/v1/speech/transcriptions`);
          xhr.withCredentials = false; // same origin: cookies go anyway
          for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
          xhr.setRequestHeader('Accept', 'application/json');
          xhr.upload.onprogress = (e) => {
            if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
          };
          xhr.onload = () => {
            let body: unknown = null;
            try {
              body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
            } catch {
              body = xhr.responseText;
            }
            if (xhr.status >= 200 && xhr.status < 300) {
              onProgress(1);
              resolve(body as Session);
            } else reject(toApiError(xhr.status, body));
          };
          xhr.onerror = () => reject(new ApiError(0, 'Upload failed: cannot reach the Takeline service'));
          xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
          const form = new FormData();
          form.append('project_key', fields.projectKey);
          if (fields.projectName) form.append('project_name', fields.projectName);
          if (fields.language) form.append('language', fields.language);
          form.append('file', file, file.name);
          xhr.send(form);
        });
      })();
      return { promise, abort: () => xhr.abort() };
    },
  };
}

/** Save a downloaded file through the browser's download mechanism. */
export function saveFile({ blob, fileName }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke later: Chromium reads the blob asynchronously after the click.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
