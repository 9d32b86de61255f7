/**
 * The one typed client for the Takeline service. In Electron the preload's bridge supplies the API key
 * and every request carries `Authorization: Bearer <key>`; in a browser the HttpOnly session cookie set
 * by /auth/signin authenticates (credentials: 'same-origin'). The key is asked for per request and
 * never stored by the studio.
 */
import { ApiError, toApiError } from './errors';
import type {
  AudioAddress,
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

export interface ApiClient {
  listProjects(signal?: AbortSignal): Promise<Project[]>;
  createProject(input: { key: string; name: string }): Promise<Project>;
  getProject(idOrKey: string, signal?: AbortSignal): Promise<ProjectDetail>;
  listSessions(
    project: string,
    page?: { limit?: number; offset?: number },
    signal?: AbortSignal,
  ): Promise<Page<Session>>;
  getSession(id: string, signal?: AbortSignal): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  setMedia(id: string, media: MediaInput): Promise<Media>;
  getAudioAddress(id: string, signal?: AbortSignal): Promise<AudioAddress>;
  getPeaks(id: string, signal?: AbortSignal): Promise<Peaks>;
  exportFile(id: string, format: ExportFormat): Promise<DownloadedFile>;
  upload(
    file: File,
    fields: { projectKey: string; projectName?: string; language?: string },
    onProgress: (fraction: number) => void,
  ): UploadHandle;
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
    if (!res.ok) throw toApiError(res.status, await readBody(res));
    return res;
  }

  async function json<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await request(path, init);
    return (await readBody(res)) as T;
  }

  const enc = encodeURIComponent;
  const jsonBody = (method: string, body: unknown): RequestInit => ({
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
  });

  return {
    listProjects: async (signal) => (await json<{ data: Project[] }>('/v1/speech/projects', { signal })).data,
    createProject: (input) => json<Project>('/v1/speech/projects', jsonBody('POST', input)),
    getProject: (idOrKey, signal) => json<ProjectDetail>(`/v1/speech/projects/${enc(idOrKey)}`, { signal }),
    listSessions: (project, page = {}, signal) => {
      const q = new URLSearchParams({
        project,
        limit: String(page.limit ?? 50),
        offset: String(page.offset ?? 0),
      });
      return json<Page<Session>>(`/v1/speech/transcriptions?${q}`, { signal });
    },
    getSession: (id, signal) => json<Session>(`/v1/speech/transcriptions/${enc(id)}`, { signal }),
    deleteSession: async (id) => {
      await request(`/v1/speech/transcriptions/${enc(id)}`, { method: 'DELETE' });
    },
    setMedia: async (id, media) =>
      (await json<{ media: Media }>(`/v1/speech/transcriptions/${enc(id)}/media`, jsonBody('PATCH', media)))
        .media,
    getAudioAddress: (id, signal) =>
      json<AudioAddress>(`/v1/speech/transcriptions/${enc(id)}/audio`, { signal }),
    getPeaks: (id, signal) => json<Peaks>(`/v1/speech/transcriptions/${enc(id)}/peaks`, { signal }),
    exportFile: async (id, format) => {
      const res = await request(`/v1/speech/transcriptions/${enc(id)}/export?format=${format}`, {
        headers: { Accept: '*/*' },
      });
      const fileName = fileNameFromDisposition(res.headers.get('Content-Disposition'), `${id}.${format}`);
      return { blob: await res.blob(), fileName };
    },
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
