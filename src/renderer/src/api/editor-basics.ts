/** The studio's calls for the editor's basics: naming project speakers and rejecting a voice match. */
import type { EditorMarker, SpeakerMatchRejected } from '../../../shared/schemas/editor';
import type { ProjectSpeaker } from './types';

export type { EditorMarker, SpeakerMatchRejected };

export interface EditorBasicsApi {
  /** Names a project speaker (`PATCH /v1/speech/projects/{project}/speakers/{id}`): every recording and export shows it. */
  renameProjectSpeaker(project: string, speakerId: string, name: string): Promise<ProjectSpeaker>;
  /** "Not this person": the recording's voice `label` is not the project speaker it was matched to. */
  rejectSpeakerMatch(sessionId: string, label: string, speakerId: string): Promise<SpeakerMatchRejected>;
  /** The editor's own markers on a recording, in time order. */
  listMarkers(sessionId: string, signal?: AbortSignal): Promise<EditorMarker[]>;
  addMarker(sessionId: string, marker: { time: number; name: string }): Promise<EditorMarker>;
  updateMarker(sessionId: string, id: string, change: { time?: number; name?: string }): Promise<EditorMarker>;
  deleteMarker(sessionId: string, id: string): Promise<void>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

export function editorBasicsApi(json: Json): EditorBasicsApi {
  const enc = encodeURIComponent;
  const send = (method: string, body: unknown): RequestInit => ({
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
  });
  return {
    renameProjectSpeaker: (project, id, name) =>
      json<ProjectSpeaker>(`/v1/speech/projects/${enc(project)}/speakers/${enc(id)}`, send('PATCH', { name })),
    rejectSpeakerMatch: (sessionId, label, speakerId) =>
      json<SpeakerMatchRejected>(
        `/v1/speech/transcriptions/${enc(sessionId)}/speakers/${enc(label)}/reject-match`,
        send('POST', { speaker_id: speakerId }),
      ),
    listMarkers: async (sessionId, signal) =>
      (await json<{ data: EditorMarker[] }>(`/v1/speech/transcriptions/${enc(sessionId)}/markers`, { signal })).data,
    addMarker: (sessionId, marker) =>
      json<EditorMarker>(`/v1/speech/transcriptions/${enc(sessionId)}/markers`, send('POST', marker)),
    updateMarker: (sessionId, id, change) =>
      json<EditorMarker>(`/v1/speech/transcriptions/${enc(sessionId)}/markers/${enc(id)}`, send('PATCH', change)),
    deleteMarker: async (sessionId, id) => {
      await json<unknown>(`/v1/speech/transcriptions/${enc(sessionId)}/markers/${enc(id)}`, { method: 'DELETE' });
    },
  };
}
