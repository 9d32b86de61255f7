import type { Role } from '../auth/roles';

/**
 * Who may call what, in one place: the role each operation (method and OpenAPI path) needs. `public` answers
 * without a key (its own rule: signatures, loopback); `signed_in` any caller with a key or a session, even one
 * with no role yet (so the studio can say so). A role is needed on the operation's project (its recording's, or
 * the one in the path) or for the whole team; operations that name no project need it somewhere (lists are
 * narrowed to what the caller sees, an upload is checked against its project), and admin ones for the whole
 * team. Every operation of the OpenAPI document has an entry (test/service/roles-matrix.test.ts).
 */
export type Requirement = 'public' | 'signed_in' | Role;

export const ROUTE_ROLES: Readonly<Record<string, Requirement>> = {
  // Operations
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'public',
  'GET /v1/openapi.json': 'signed_in',
  'GET /v1/me': 'signed_in',

  // Users and their roles
  'GET /v1/admin/users': 'admin',
  'PUT /v1/admin/users/{user_id}/roles': 'admin',
  'GET /v1/admin/audit': 'admin',

  // Projects
  'GET /v1/speech/projects': 'viewer',
  'POST /v1/speech/projects': 'admin',
  'GET /v1/speech/projects/{project}': 'viewer',
  'GET /v1/speech/projects/{project}/vocabulary': 'viewer',
  'PUT /v1/speech/projects/{project}/vocabulary': 'editor',
  'PATCH /v1/speech/projects/{project}/speakers/{speaker_id}': 'editor',
  'POST /v1/speech/projects/{project}/transcripts/replace': 'editor',

  // Recordings: reading, playing, exporting
  'GET /v1/speech/transcriptions': 'viewer',
  'POST /v1/speech/transcriptions': 'editor',
  'GET /v1/speech/transcriptions/{session_id}': 'viewer',
  'DELETE /v1/speech/transcriptions/{session_id}': 'admin',
  'PATCH /v1/speech/transcriptions/{session_id}/media': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/audio': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/audio/original': 'public',
  'POST /v1/speech/transcriptions/{session_id}/retry': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/peaks': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/export': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/intelligence': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/intelligence': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/intelligence/runs': 'viewer',

  // Transcript corrections
  'PATCH /v1/speech/transcriptions/{session_id}/transcript/segments/{segment_id}': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/transcript/replace': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/transcript/reassign': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/transcript/merge': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/transcript/split': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/transcript/align': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/transcript/revisions': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/transcript/revisions/{revision}': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/transcript/revisions/{revision}/restore': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/speakers/{label}/reject-match': 'editor',

  // The editor's markers on a recording
  'GET /v1/speech/transcriptions/{session_id}/markers': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/markers': 'editor',
  'PATCH /v1/speech/transcriptions/{session_id}/markers/{marker_id}': 'editor',
  'DELETE /v1/speech/transcriptions/{session_id}/markers/{marker_id}': 'editor',

  // Dubs
  'GET /v1/speech/transcriptions/{session_id}/dubs': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}': 'viewer',
  'PATCH /v1/speech/transcriptions/{session_id}/dubs/{dub_id}': 'editor',
  'DELETE /v1/speech/transcriptions/{session_id}/dubs/{dub_id}': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}': 'viewer',
  'PATCH /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/split': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/merge': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/notes': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/notes': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/takes': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/takes': 'editor',
  'PUT /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/take': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/takes/{take_id}/file': 'public',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits/undo': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits/redo': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/stems': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet.csv': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet.xlsx': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/audio': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/file': 'public',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/peaks': 'viewer',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/restore': 'editor',
  'POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoice': 'editor',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices/{revoice_id}': 'viewer',
  'GET /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/export': 'viewer',

  // Models
  'GET /v1/speech/models/whisper': 'viewer',
  'GET /v1/speech/models/whisper/{name}': 'viewer',
  'DELETE /v1/speech/models/whisper/{name}': 'admin',
  'POST /v1/speech/models/whisper/{name}/download': 'admin',
  'DELETE /v1/speech/models/whisper/{name}/download': 'admin',
  'POST /v1/speech/models/whisper/{name}/verify': 'admin',
  'GET /v1/audio/models': 'viewer',
  'GET /v1/models': 'viewer',
  'GET /v1/models/{model}': 'viewer',

  // OpenAI-compatible work: transcribing a recording, speaking text
  'POST /v1/audio/transcriptions': 'editor',
  'POST /v1/audio/speech': 'editor',
};
