/** The studio's calls for speaker fixes by hand (`/v1/speech/transcriptions/{id}/transcript/…`). */
import type {
  ProjectTranscriptReplaceResult,
  ScriptAlignResult,
  TranscriptReplaceResult,
  TranscriptRevision,
  TranscriptRevisionList,
} from '../../../shared/schemas/transcript-edits';
import type { Session as ServiceSession } from '../../../shared/schemas/sessions';
import type { Session } from './types';

export type { TranscriptRevision, TranscriptRevisionList };

/** Find and replace: a preview lists the matches; applied, the new revision and session come back. */
export type ReplaceResult = Omit<TranscriptReplaceResult, 'session'> & { session?: MappedSession };
export type AlignResult = Omit<ScriptAlignResult, 'session'> & { session: MappedSession };
export type { ProjectTranscriptReplaceResult };
export type ScriptAlignmentCounts = ScriptAlignResult['alignment'];

/** A recording label's project speaker (the service's SpeakerMapEntry). */
export type SpeakerMapEntry = ServiceSession['speaker_map'][string];

/** A session as the API returns it, with its speaker map (label → project speaker). */
export type MappedSession = Session & { speaker_map?: Record<string, SpeakerMapEntry> };

export interface TranscriptEdit {
  revision: TranscriptRevision;
  session: MappedSession;
}

/** Who gets the speech: a label of the recording, "new", or a project speaker by id. */
export type SpeakerTarget = { speaker: string } | { speaker_id: string };

export interface TranscriptEditsApi {
  listRevisions(sessionId: string, signal?: AbortSignal): Promise<TranscriptRevisionList>;
  reassignSpeaker(
    sessionId: string,
    edit: { segment_id: number; word_start?: number; word_end?: number; base_revision?: number } & SpeakerTarget,
  ): Promise<TranscriptEdit>;
  mergeSpeakers(sessionId: string, edit: { from: string; into: string; base_revision?: number }): Promise<TranscriptEdit>;
  splitLine(sessionId: string, edit: { segment_id: number; word_index: number; base_revision?: number }): Promise<TranscriptEdit>;
  restoreRevision(sessionId: string, revision: number, baseRevision?: number): Promise<TranscriptEdit>;
  // Word corrections
  editLineText(
    sessionId: string,
    segmentId: number,
    edit: { text: string; word_start?: number; word_end?: number; base_revision?: number },
  ): Promise<TranscriptEdit>;
  replaceText(
    sessionId: string,
    edit: { find: string; replace: string; match_case?: boolean; whole_words?: boolean; preview?: boolean; base_revision?: number },
  ): Promise<ReplaceResult>;
  alignScript(sessionId: string, edit: { text: string; base_revision?: number }, signal?: AbortSignal): Promise<AlignResult>;
  /** Find and replace in every recording of a project (`POST /v1/speech/projects/{project}/transcripts/replace`). */
  replaceInProject(
    project: string,
    edit: { find: string; replace: string; match_case?: boolean; whole_words?: boolean; preview?: boolean },
  ): Promise<ProjectTranscriptReplaceResult>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

export function transcriptEditsApi(json: Json): TranscriptEditsApi {
  const at = (id: string) => `/v1/speech/transcriptions/${encodeURIComponent(id)}/transcript`;
  const post = <T>(path: string, body: unknown) =>
    json<T>(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  return {
    listRevisions: (id, signal) => json<TranscriptRevisionList>(`${at(id)}/revisions`, { signal }),
    reassignSpeaker: (id, edit) => post<TranscriptEdit>(`${at(id)}/reassign`, edit),
    mergeSpeakers: (id, edit) => post<TranscriptEdit>(`${at(id)}/merge`, edit),
    splitLine: (id, edit) => post<TranscriptEdit>(`${at(id)}/split`, edit),
    restoreRevision: (id, revision, base) =>
      post<TranscriptEdit>(`${at(id)}/revisions/${revision}/restore`, base === undefined ? {} : { base_revision: base }),
    editLineText: (id, segmentId, edit) =>
      json<TranscriptEdit>(`${at(id)}/segments/${segmentId}`, {
        method: 'PATCH',
        body: JSON.stringify(edit),
        headers: { 'Content-Type': 'application/json' },
      }),
    replaceText: (id, edit) => post<ReplaceResult>(`${at(id)}/replace`, edit),
    replaceInProject: (project, edit) =>
      post<ProjectTranscriptReplaceResult>(`/v1/speech/projects/${encodeURIComponent(project)}/transcripts/replace`, edit),
    alignScript: (id, edit, signal) =>
      json<AlignResult>(`${at(id)}/align`, {
        method: 'POST',
        body: JSON.stringify(edit),
        headers: { 'Content-Type': 'application/json' },
        signal,
      }),
  };
}
