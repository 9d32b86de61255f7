/** The studio's calls for the editor's basics (issue 33): naming project speakers and rejecting a voice match. */
import type { SpeakerMatchRejected } from '../../../shared/schemas/editor';
import type { ProjectSpeaker } from './types';

export type { SpeakerMatchRejected };

export interface EditorBasicsApi {
  /** Names a project speaker (`PATCH /v1/speech/projects/{project}/speakers/{id}`): every recording and export shows it. */
  renameProjectSpeaker(project: string, speakerId: string, name: string): Promise<ProjectSpeaker>;
  /** "Not this person": the recording's voice `label` is not the project speaker it was matched to. */
  rejectSpeakerMatch(sessionId: string, label: string, speakerId: string): Promise<SpeakerMatchRejected>;
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
  };
}
