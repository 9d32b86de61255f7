/**
 * The studio's calls for the dubbing workflow: a dub of the recording itself, line retiming,
 * split / merge with undo and redo, review status and notes, per-line speed, and the dub's exports.
 */
import type { DubExportFormat, DubRevision, DubTake, LineEdit, LineNote, LinePatch, ReviewStatus, TakesRequest } from '../../../shared/schemas/dubs';
import type { Dub, DubLine } from './types';

export type { DubExportFormat, DubTake, LineEdit, LineNote, LinePatch, ReviewStatus, TakesRequest };

/** An undo or a redo: the edit, and the lines it put back. */
export interface LineEditResult {
  edit: LineEdit;
  lines: DubLine[];
}

export interface DubWorkflowApi {
  /** A dub of the recording's own audio and current transcript (`POST …/dubs` with a JSON body). */
  createDubFromRecording(sessionId: string, input: { name?: string; voices?: Record<string, string> }): Promise<Dub>;
  /** The dub's lines, or only what is left to review (`?left=true`) or only the approved ones (`?left=false`). */
  listDubLines(sessionId: string, dubId: string, filter: { left?: boolean; review_status?: ReviewStatus }, signal?: AbortSignal): Promise<DubLine[]>;
  /** Text, voice, timing, speed and/or review status of one line. */
  patchDubLine(sessionId: string, dubId: string, lineId: number, patch: LinePatch): Promise<DubLine>;
  splitDubLine(sessionId: string, dubId: string, lineId: number, at: { at?: number; word_index?: number }): Promise<{ lines: DubLine[] }>;
  /** Merges the next line (`withId`) into this one. */
  mergeDubLine(sessionId: string, dubId: string, lineId: number, withId: number): Promise<DubLine>;
  undoDubEdit(sessionId: string, dubId: string): Promise<LineEditResult>;
  redoDubEdit(sessionId: string, dubId: string): Promise<LineEditResult>;
  listDubEdits(sessionId: string, dubId: string, signal?: AbortSignal): Promise<LineEdit[]>;
  addDubLineNote(sessionId: string, dubId: string, lineId: number, text: string): Promise<LineNote>;
  exportDub(sessionId: string, dubId: string, format: DubExportFormat): Promise<{ blob: Blob; fileName: string }>;
  // ---- dub takes ----
  /** Renders takes of a line; answers once they are rendered or after `wait` seconds (then poll listDubTakes). */
  renderDubTakes(sessionId: string, dubId: string, lineId: number, request: TakesRequest, wait?: number): Promise<DubTake[]>;
  listDubTakes(sessionId: string, dubId: string, lineId: number, signal?: AbortSignal): Promise<DubTake[]>;
  /** Uploads a recording of a line (it starts `countIn` seconds before the line): stored as a ready take, `source: "recorded"`. */
  recordDubTake(sessionId: string, dubId: string, lineId: number, recording: Blob, countIn: number): Promise<DubTake[]>;
  /** Puts a take in: a new revision with the take as the line's audio. */
  chooseDubTake(sessionId: string, dubId: string, lineId: number, takeId: string): Promise<{ line: DubLine; revision: DubRevision }>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;
type Download = (path: string, fallbackName: string) => Promise<{ blob: Blob; fileName: string }>;

export function dubWorkflowApi(json: Json, download: Download): DubWorkflowApi {
  const enc = encodeURIComponent;
  const dubs = (sid: string) => `/v1/speech/transcriptions/${enc(sid)}/dubs`;
  const dub = (sid: string, dubId: string) => `${dubs(sid)}/${enc(dubId)}`;
  const send = <T>(method: string, path: string, body?: unknown) =>
    json<T>(path, body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  return {
    createDubFromRecording: (sid, input) => send<Dub>('POST', dubs(sid), { source: 'recording', ...input }),
    listDubLines: async (sid, dubId, filter, signal) => {
      const q = new URLSearchParams();
      if (filter.left !== undefined) q.set('left', String(filter.left));
      if (filter.review_status) q.set('review_status', filter.review_status);
      const query = q.size ? `?${q}` : '';
      return (await json<{ data: DubLine[] }>(`${dub(sid, dubId)}/lines${query}`, { signal })).data;
    },
    patchDubLine: (sid, dubId, lineId, patch) => send<DubLine>('PATCH', `${dub(sid, dubId)}/lines/${lineId}`, patch),
    splitDubLine: (sid, dubId, lineId, at) => send<{ lines: DubLine[] }>('POST', `${dub(sid, dubId)}/lines/${lineId}/split`, at),
    mergeDubLine: (sid, dubId, lineId, withId) => send<DubLine>('POST', `${dub(sid, dubId)}/lines/${lineId}/merge`, { with: withId }),
    undoDubEdit: (sid, dubId) => send<LineEditResult>('POST', `${dub(sid, dubId)}/edits/undo`),
    redoDubEdit: (sid, dubId) => send<LineEditResult>('POST', `${dub(sid, dubId)}/edits/redo`),
    listDubEdits: async (sid, dubId, signal) => (await json<{ data: LineEdit[] }>(`${dub(sid, dubId)}/edits`, { signal })).data,
    addDubLineNote: (sid, dubId, lineId, text) => send<LineNote>('POST', `${dub(sid, dubId)}/lines/${lineId}/notes`, { text }),
    exportDub: (sid, dubId, format) => download(`${dub(sid, dubId)}/export?format=${format}`, `dub.${format}`),
    renderDubTakes: async (sid, dubId, lineId, request, wait = 60) =>
      (await send<{ data: DubTake[] }>('POST', `${dub(sid, dubId)}/lines/${lineId}/takes?wait=${wait}`, request)).data,
    listDubTakes: async (sid, dubId, lineId, signal) => (await json<{ data: DubTake[] }>(`${dub(sid, dubId)}/lines/${lineId}/takes`, { signal })).data,
    recordDubTake: async (sid, dubId, lineId, recording, countIn) => {
      const form = new FormData();
      form.append('file', recording, `line-${lineId}.webm`);
      form.append('count_in', String(countIn));
      return (await json<{ data: DubTake[] }>(`${dub(sid, dubId)}/lines/${lineId}/takes`, { method: 'POST', body: form })).data;
    },
    chooseDubTake: (sid, dubId, lineId, takeId) => send<{ line: DubLine; revision: DubRevision }>('PUT', `${dub(sid, dubId)}/lines/${lineId}/take`, { take_id: takeId }),
  };
}
