import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import {
  AnalysisDocument,
  AnalysisRunList,
  AnalysisRunStarted,
  AudioAddress,
  DetailError,
  Dub,
  DubAudioAddress,
  DubId,
  DubLine,
  DubPatch,
  DubRevision,
  LinePatch,
  Revoice,
  DubTake,
  TakeChoice,
  TakesQuery,
  TakesRequest,
  RecordedTakeUpload,
  MediaPatch,
  MediaResponse,
  OpenAIError,
  OpenAIModel,
  OpenAIModelList,
  PageQuery,
  Peaks,
  ProjectCreate,
  Project,
  ProjectDetail,
  ProjectSpeaker,
  ProjectSpeakerUpdate,
  ProjectVocabulary,
  Session,
  SessionPage,
  SessionSummary,
  SpeechModelList,
  SpeechRequest,
  SpeechWithWords,
  ValidationError,
  RevisionRestore,
  SegmentSplit,
  SpeakerMerge,
  SpeakerReassign,
  TranscriptEditResult,
  TranscriptRevisionDetail,
  TranscriptRevisionList,
  ScriptAlign,
  ScriptAlignResult,
  WhisperDownloadCancel,
  WhisperModel,
  WhisperModelList,
  WhisperModelName,
  MAX_CORRECTION_CHARS,
  ProjectTranscriptReplace,
  ProjectTranscriptReplaceResult,
  TranscriptReplace,
  TranscriptReplaceResult,
  TranscriptTextEdit,
} from '../../shared/schemas';
// ---- dubbing workflow ----
import { DubExportQuery, DubFromRecording, LineEdit, LineMerge, LineNote, LineNoteInput, LineSplit, LinesQuery } from '../../shared/schemas';
// ---- end of the dubbing workflow imports ----
// editor's basics
import { EditorMarker, EditorMarkerCreate, EditorMarkerList, EditorMarkerUpdate, SpeakerMatchReject, SpeakerMatchRejected } from '../../shared/schemas/editor';
import { Readiness } from '../../shared/schemas/operations';
import { AuditPage, AuditQuery } from '../../shared/schemas/audit';
import { ExportQuery } from '../http/routes/transcriptions';
import { UploadFields } from '../http/routes/transcriptions';
import { OpenAITranscriptionFields } from '../http/routes/openai-transcriptions';
import { IntelligenceQuery } from '../http/routes/intelligence';
import { RevoiceQuery } from '../http/routes/dubs';
import { cueSheetPaths } from './cue-sheets';
import { AdminUser, AdminUserList, Me, RolesUpdate } from '../../shared/schemas/roles';
import { ROUTE_ROLES } from '../http/route-roles';

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

const speechErrors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) =>
      status === 422 ? ['422', json(ValidationError, 'Invalid input')] : [String(status), json(DetailError, errorDescriptions[status] ?? 'Error')],
    ),
  );
const audioErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), json(OpenAIError, errorDescriptions[status] ?? 'Error')]));

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: "Forbidden (Host/Origin not allowed, an invalid or expired signature, a key limited to projects asking for what only an unlimited key may do, or the caller's role is short: the detail names the role needed)",
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Not decodable audio or video, or wrong Content-Type',
  416: 'Range beyond the end of the file (`Content-Range: bytes */<size>`)',
  500: 'Internal error',
  502: 'The download server failed, or sent a file whose checksum is not the published one',
  503: 'Unavailable: an engine this needs is not installed, or the storage does not answer (then with `Retry-After`; try again then)',
  507: 'Not enough free disk space',
};

const sessionParam = z.object({ session_id: z.uuid().meta({ description: 'Transcription session id' }) });
const whisperParam = z.object({ name: WhisperModelName });
const projectParam = z.object({ project: z.string().meta({ description: 'Project id or key' }) });

const uploadBody = UploadFields.extend({ file: z.string().meta({ format: 'binary', description: 'The recording' }) });
const openAiBody = OpenAITranscriptionFields.omit({ timestamp_granularities: true, known_speaker_names: true, known_speaker_references: true, stream: true, store: true, chunking_strategy: true })
  .extend({
    file: z.string().meta({ format: 'binary', description: 'The recording' }),
    prompt: z
      .string()
      .max(16_384)
      .optional()
      .meta({
        description:
          "Whisper's initial prompt. With PocketSphinx, its words that the dictionary lacks (names, jargon) get pronunciations and a place in the language model for this request, and are spelled as written here; the project's vocabulary is added to it",
      }),
    stream: z.boolean().optional().meta({ description: 'Server-Sent Events: transcript.text.delta per decoded segment, then transcript.text.done' }),
    store: z
      .boolean()
      .optional()
      .meta({
        description:
          'Default true: the call is kept as a session (its id in `X-Session-Id`), analysed and learnt from. false: nothing is kept (no session, project, stored audio, analysis or speaker adaptation; no `X-Session-Id`, no `session_id` in verbose_json); the answer is otherwise the same',
      }),
    'timestamp_granularities[]': z.array(z.enum(['word', 'segment'])).optional().meta({ description: 'With verbose_json: word and/or segment timings' }),
    chunking_strategy: z.string().optional().meta({ description: '"auto" or a JSON server_vad object' }),
    'known_speaker_names[]': z
      .array(z.string())
      .optional()
      .meta({ description: 'Names of speakers (up to 4), one reference clip each; their number is the minimum speaker count unless min_speakers is given' }),
    'known_speaker_references[]': z.array(z.string()).optional().meta({ description: 'Data URLs of short audio clips, one per name' }),
  });

/** Every operation names a stable, unique `operationId`: client generators make their method names from it. */
const op = (o: ZodOpenApiOperationObject & { operationId: string }) => o;

/** The polled documents (a session, its analysis) are revalidated by a strong ETag; see docs/api.md, "Polling". */
const conditionalHeader = z.object({
  'if-none-match': z
    .string()
    .optional()
    .meta({ description: 'The `ETag` of the copy the client holds (or a list of them, or `*`): 304 with no body when it is still current' }),
});
const etagged = (schema: z.ZodType, description: string) => ({
  ...json(schema, description),
  headers: z.object({
    ETag: z.string().meta({ description: 'Strong validator of this document (opaque; new at every change and at every service start)' }),
    'Cache-Control': z.string().meta({ description: '`private, no-cache`: a copy may be kept by the client, revalidated with If-None-Match before use' }),
  }),
});
const notModified = {
  '304': {
    description: 'Not modified: the copy named by If-None-Match is current (no body; ETag and Cache-Control as on a 200)',
    headers: z.object({ ETag: z.string(), 'Cache-Control': z.string() }),
  },
};
const pollingNote =
  ' Answers carry a strong `ETag` (`Cache-Control: private, no-cache`); send it back as `If-None-Match` to get 304 with no body while the document is unchanged — any change to what it shows (status, progress, transcript, speaker fixes, speaker map, project and speaker names, analysis results) gives a new one, and so does a restart of the service.';

const dubParam = sessionParam.extend({ dub_id: DubId });
const lineParam = dubParam.extend({ line_id: z.string().regex(/^\d+$/).meta({ description: 'Line id within the dub (stable: a line split off gets a new one)' }) });
const revisionParam = dubParam.extend({ number: z.string().regex(/^\d+$/).meta({ description: 'Revision number (1 is the upload)' }) });
const dubUploadBody = z.object({
  file: z.string().meta({ format: 'binary', description: 'The dub audio: anything ffmpeg decodes; up to 8 channels; stored losslessly as WAV at its rate, channels and depth' }),
  background: z.string().optional().meta({ format: 'binary', description: 'Music-and-effects stem; revoiced lines are mixed over it (resampled to the dub)' }),
  lines: z.string().optional().meta({
    description:
      'JSON array of lines, each {speaker (default "S1"), start, end, text (1–1000 characters), voice?}; lines may not overlap (at most 5000). Without it the dub is transcribed and its segments become the lines.',
    example: '[{"speaker":"S1","start":0.5,"end":3.2,"text":"We leave at dawn."}]',
  }),
  voices: z.string().optional().meta({ description: 'JSON object: voice per speaker, e.g. {"S1":"festival-hts/slt","S2":"flite/rms"}' }),
  default_voice: z.string().optional().meta({ description: 'Voice for speakers without one (default: the most natural installed voice)' }),
  name: z.string().optional().meta({ description: 'Display name (default: the file name)' }),
});
const revoiceDescription =
  'Voices again every line that needs it (corrected text, or a changed voice or timing since it was voiced) as a durable background job, and writes a new revision: each line is synthesized, its silence trimmed, fitted into its slot (time-stretch 0.8–1.15×, then the quiet after the line borrowed up to 0.1 s before the next line, else flagged `does_not_fit` and cut at the slot end), matched in loudness to the original line (BS.1770), resampled to the dub, crossfaded in (equal power, 20 ms, at least 10 ms, just outside the slot) and mixed over the background stem when there is one. Every sample outside each line\'s `region` is bit-identical to the base revision. Waits up to `wait` seconds: 200 when finished (`status` complete or failed), else 202 with `Location` to poll (`GET …/revoices/{revoice_id}`) every few seconds until `status` is `complete` or `failed`. With nothing to revoice: 200, `status` `no_op`, no revision written. A revoice already running is returned rather than started twice.';

// ---- Word corrections: kept apart so merges with the other transcript routes stay easy.
// Corrections teach the recognizer (docs/transcription.md, "Corrections teach the recognizer").
const correctionLearning =
  "A corrected line teaches the recognizer: its speaker's adaptation is collected again in the background along the corrected words (the project speaker's `adaptation.corrected_seconds` says how much corrected speech it uses), and typed words the recognizer's dictionary lacks are added to the project's vocabulary at once (listed as the revision edit's `vocabulary_added`; remove one with `PUT …/vocabulary`).";
const correctionTiming =
  `Words whose spoken form is unchanged (case, punctuation and number spelling do not count) keep their times and confidence exactly. Changed and new words are timed by forced alignment (PocketSphinx, the aligner the revoice uses; a word the dictionary lacks is pronounced by espeak-ng, as the project vocabulary is) of their stretch of audio, with the unchanged words either side as context, and fitted between those words: in order, never overlapping, inside the line. Where the new words have no room between two unchanged words that touch, the longer neighbour is timed again with them (\`retimed_unchanged\`). A stretch the aligner cannot decode is aligned again with the unchanged word either side released (up to twice more, listed as \`retimed_unchanged\`); if alignment still fails, its time is shared by syllables and the words are listed as \`interpolated\` in the revision's edit. Typed words get confidence 1. Stored as one transcript revision (undo with …/revisions/{revision}/restore); a new analysis run is queued. Text up to ${MAX_CORRECTION_CHARS} characters. ${correctionLearning}`;

const wordCorrectionPaths = {
  '/v1/speech/transcriptions/{session_id}/transcript/segments/{segment_id}': {
    patch: op({
      operationId: 'correctTranscriptLine',
      summary: "Correct a line's words (or a range of them)",
      description: `The line's words, or words \`word_start\`…\`word_end\` (inclusive, 0-based), become \`text\`. Empty text deletes the range; a line keeps at least one word (422 otherwise, and for a whole line's empty text or text equal to the line's). 404 for a line the transcript lacks; 409 when \`base_revision\` is stale or the transcript changed while the words were being aligned. ${correctionTiming}`,
      requestParams: { path: sessionParam.extend({ segment_id: z.number().int().min(0).meta({ description: 'The line (segment id)' }) }) },
      requestBody: { content: { 'application/json': { schema: TranscriptTextEdit } } },
      responses: { '200': json(TranscriptEditResult, 'The new revision and the session'), ...speechErrors(401, 404, 409, 415, 422) },
    }),
  },
  '/v1/speech/transcriptions/{session_id}/transcript/replace': {
    post: op({
      operationId: 'replaceInTranscript',
      summary: 'Find and replace in a recording (with a preview)',
      description: `Finds \`find\` in each line's text (its words joined by single spaces, so a phrase matches across words). \`preview: true\` answers the count and each match (line, words touched, before and after) and changes nothing. Otherwise every match is replaced as one revision; nothing matched answers \`revision: null\`. A replacement that would leave a line without words is refused (422, nothing changed). ${correctionTiming}`,
      requestParams: { path: sessionParam },
      requestBody: { content: { 'application/json': { schema: TranscriptReplace } } },
      responses: { '200': json(TranscriptReplaceResult, 'The matches, and the revision made'), ...speechErrors(401, 404, 409, 415, 422) },
    }),
  },
  '/v1/speech/projects/{project}/transcripts/replace': {
    post: op({
      operationId: 'replaceInProjectTranscripts',
      summary: "Find and replace across a project's recordings",
      description: `The same over every finished recording of the project: one revision per recording that matches, counts and matches per recording (\`preview: true\` changes nothing). Every recording is checked before any is written; the recordings are then replaced one after another, and the first that fails (409: it changed meanwhile) stops it, with the error of that recording (those before it keep their replacement). On a team server the API node finds the matches and workers make the replacements, side by side (one job of kind \`replace_in_recording\` per recording with a match): the same answer and errors (statuses and bodies), the first failure in the project's order (recordings that finished meanwhile keep theirs, the unfinished are cancelled). A client that disconnects stops what is not stored yet. A worker that dies is relieved by another, which never replaces twice. ${correctionTiming}`,
      requestParams: { path: projectParam },
      requestBody: { content: { 'application/json': { schema: ProjectTranscriptReplace } } },
      responses: { '200': json(ProjectTranscriptReplaceResult, 'Per recording: the matches, and the revision made'), ...speechErrors(401, 404, 409, 415, 422) },
    }),
  },
};

/** Who the caller is, and users' roles (docs/roles.md). */
const rolePaths = {
  '/v1/me': {
    get: op({
      operationId: 'getMe',
      summary: 'Who the caller is and the roles they hold',
      description: 'Answers for any caller with a key or a session, also one with no role yet (`team_role` null, no `projects`).',
      responses: { '200': json(Me, 'The caller'), ...speechErrors(401) },
    }),
  },
  '/v1/admin/users': {
    get: op({
      operationId: 'listUsers',
      summary: 'Users with their roles (admins of the whole team)',
      responses: { '200': json(AdminUserList, 'Every user, in the order they were made'), ...speechErrors(401, 403) },
    }),
  },
  '/v1/admin/users/{user_id}/roles': {
    put: op({
      operationId: 'setUserRoles',
      summary: "Replace a user's roles (admins of the whole team)",
      description: 'The role for the whole team (or none) and a role per project; the change holds from the next request on every API node.',
      requestParams: { path: z.object({ user_id: z.string().meta({ description: "The user's id or name" }) }) },
      requestBody: { content: { 'application/json': { schema: RolesUpdate } } },
      responses: { '200': json(AdminUser, 'The user with their new roles'), ...speechErrors(401, 403, 404, 413, 415, 422) },
    }),
  },
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Each operation names the role it needs (`x-takeline-role`, from the one table the service enforces), and those
 * that need one document the 403 of a caller whose role is short.
 */
function withRoles<D extends { paths?: object }>(document: D): D {
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const operation = item[method] as { responses: Record<string, unknown>; 'x-takeline-role'?: string } | undefined;
      if (!operation) continue;
      const requirement = ROUTE_ROLES[`${method.toUpperCase()} ${path}`];
      if (requirement === undefined) continue;
      operation['x-takeline-role'] = requirement;
      if (requirement === 'public' || requirement === 'signed_in' || operation.responses['403']) continue;
      const unauthorized = operation.responses['401'] as { content?: unknown } | undefined;
      operation.responses['403'] = { description: `The caller's role is short: this needs the ${requirement} role`, ...(unauthorized?.content ? { content: unauthorized.content } : {}) };
    }
  }
  return document;
}

/** The document, naming as its server the address the client reached (the service may listen on any port). */
export function openApiDocument(serverUrl = 'http://127.0.0.1:8765') {
  return withRoles(createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Takeline API',
      version: '1.0.0',
      description:
        'Local speech service of the Takeline studio. Errors under /v1/speech/ use FastAPI\'s shape ({"detail": …}, 422 for invalid input); under /v1/audio/ and /v1/models OpenAI\'s error envelope. A key limited to projects gets 404 for everything of any other project, as for something that does not exist. Each operation names the role it needs in `x-takeline-role` (viewer, editor, admin; `signed_in`: any caller with a key or session; `public`: none); a caller whose role is short gets 403 naming it.',
    },
    servers: [{ url: serverUrl }],
    security: [{ BearerAuth: [] }, { ApiKeyHeader: [] }],
    components: {
      securitySchemes: {
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer tl_…' },
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    paths: {
      ...wordCorrectionPaths,
      ...rolePaths,
      '/healthz': {
        get: op({ operationId: 'getHealth', summary: 'Liveness', security: [], responses: { '200': json(z.object({ status: z.literal('ok') }), 'Running') } }),
      },
      '/readyz': {
        get: op({
          operationId: 'getReadiness',
          summary: 'Readiness: the database and the storage answer (for a load balancer; any Host)',
          security: [],
          responses: { '200': json(Readiness, 'Ready'), '503': json(Readiness, 'Not ready: `failed` names what did not answer') },
        }),
      },
      '/metrics': {
        get: op({
          operationId: 'getMetrics',
          summary: 'Prometheus metrics (text format): to a scraper on loopback, or with TAKELINE_METRICS_TOKEN as a bearer token from anywhere',
          security: [],
          responses: {
            '200': { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: z.string() } } },
            '401': json(DetailError, 'TAKELINE_METRICS_TOKEN is set and the request did not present it'),
            '403': json(DetailError, 'No token is set and the scraper is not on this machine (or names another Host)'),
          },
        }),
      },
      '/v1/admin/audit': {
        get: op({
          operationId: 'listAuditEntries',
          summary: 'The audit trail, newest first (admins only)',
          description:
            'Who did what, to which object of which project, when and from where: sign-ins and refused sign-ins, keys created, revoked and re-scoped, users and roles changed, projects and recordings created and deleted, transcript revisions, dub line edits, reviews, notes and revoices, exports of whole recordings. Entries are only ever added: nothing in Takeline edits or deletes one. Filters combine; `since` is inclusive, `until` exclusive.',
          requestParams: { query: AuditQuery },
          responses: { '200': json(AuditPage, 'A page of entries'), ...speechErrors(401, 403, 422) },
        }),
      },
      '/v1/openapi.json': {
        get: op({ operationId: 'getOpenApiDocument', summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': {} } }, ...speechErrors(401) } }),
      },
      '/v1/speech/projects': {
        get: op({ operationId: 'listProjects', summary: 'List projects', responses: { '200': json(z.object({ data: z.array(Project) }), 'Projects, newest first'), ...speechErrors(401) } }),
        post: op({
          operationId: 'createProject',
          summary: 'Create a project',
          requestBody: { content: { 'application/json': { schema: ProjectCreate } } },
          responses: { '201': json(Project, 'Created'), ...speechErrors(401, 403, 409, 413, 415, 422) },
        }),
      },
      '/v1/speech/projects/{project}': {
        get: op({
          operationId: 'getProject',
          summary: 'Read a project with its known speakers',
          requestParams: { path: projectParam },
          responses: { '200': json(ProjectDetail, 'The project'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/projects/{project}/vocabulary': {
        get: op({
          operationId: 'getProjectVocabulary',
          summary: "Read the project's vocabulary",
          description:
            'Names and terms every transcription in this project expects, beside the request\'s `prompt`. PocketSphinx gives the words its dictionary lacks pronunciations (espeak-ng) and a place in its language model, and writes them as spelled here; Whisper receives them at the head of its prompt. Words an editor types into a transcript correction or an aligned script that the dictionary lacks are added here automatically (the revision edit\'s `vocabulary_added` lists them).',
          requestParams: { path: projectParam },
          responses: { '200': json(ProjectVocabulary, 'The terms'), ...speechErrors(401, 404, 422) },
        }),
        put: op({
          operationId: 'replaceProjectVocabulary',
          summary: "Replace the project's vocabulary",
          requestParams: { path: projectParam },
          requestBody: { content: { 'application/json': { schema: ProjectVocabulary } } },
          responses: { '200': json(ProjectVocabulary, 'The stored terms (repeats dropped)'), ...speechErrors(401, 404, 413, 415, 422) },
        }),
      },
      '/v1/speech/projects/{project}/speakers/{speaker_id}': {
        patch: op({
          operationId: 'updateProjectSpeaker',
          summary: 'Name a project speaker',
          requestParams: { path: projectParam.extend({ speaker_id: z.uuid() }) },
          requestBody: { content: { 'application/json': { schema: ProjectSpeakerUpdate } } },
          responses: { '200': json(ProjectSpeaker, 'The speaker'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions': {
        get: op({
          operationId: 'listSessions',
          summary: 'List transcription sessions, newest first',
          requestParams: { query: PageQuery.extend({ project: z.string().optional().meta({ description: 'Project id or key' }) }) },
          responses: { '200': json(SessionPage, 'A page of sessions'), ...speechErrors(401, 404, 422) },
        }),
        post: op({
          operationId: 'createSession',
          summary: 'Upload a recording; it is transcribed by a background job',
          requestBody: { content: { 'multipart/form-data': { schema: uploadBody } } },
          responses: { '201': json(SessionSummary, 'The new session (status queued)'), ...speechErrors(401, 413, 415, 422, 503, 507) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}': {
        get: op({
          operationId: 'getSession',
          summary: 'Read a session with its transcript',
          description: `Poll it every few seconds while \`status\` is \`queued\` or \`running\`.${pollingNote}`,
          requestParams: { path: sessionParam, header: conditionalHeader },
          responses: { '200': etagged(Session, 'The session'), ...notModified, ...speechErrors(401, 404, 422) },
        }),
        delete: op({ operationId: 'deleteSession', summary: 'Delete a session, its rows and files', requestParams: { path: sessionParam }, responses: { '204': { description: 'Deleted' }, ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/media': {
        patch: op({
          operationId: 'setSessionTimebase',
          summary: 'Set the timebase',
          description: 'Omitted fields keep their value; the first time, frame_rate is required and the rest default (drop_frame false, start_timecode null, tape "").',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: MediaPatch } } },
          responses: { '200': json(MediaResponse, 'The timebase'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/audio': {
        get: op({
          operationId: 'getSessionAudioAddress',
          summary: 'A signed one-hour address of the original audio',
          requestParams: { path: sessionParam },
          responses: { '200': json(AudioAddress, 'Signed address'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/audio/original': {
        get: op({
          operationId: 'getSessionOriginalAudio',
          summary: 'The original file (signed address; no key)',
          security: [],
          requestParams: { path: sessionParam, query: z.object({ expires: z.string(), signature: z.string() }) },
          responses: {
            '200': { description: 'The original bytes', content: { 'audio/*': { schema: z.string().meta({ format: 'binary' }) } } },
            '206': { description: 'A byte range' },
            ...speechErrors(403, 404, 416, 503),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/retry': {
        post: op({
          operationId: 'retrySession',
          summary: 'Queue a failed transcription again',
          description:
            'A failed transcription (e.g. interrupted at the same point too many times, or a decoding failure since fixed) is queued again as a new job with the same settings; chunks already recognized are reused. 409 unless the session is `failed`.',
          requestParams: { path: sessionParam },
          responses: { '202': json(SessionSummary, 'Queued again'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/peaks': {
        get: op({ operationId: 'getSessionPeaks', summary: 'Waveform peaks, computed once', requestParams: { path: sessionParam }, responses: { '200': json(Peaks, 'Peaks'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/export': {
        get: op({
          operationId: 'exportSession',
          summary: 'Export for editors (srt, vtt, edl, fcpxml, csv, selects_edl, analysis_csv), diarized_json, and the audio (wav), whole or a part',
          description:
            'Times use the recording’s timebase (PATCH …/media); without one, 25 fps non-drop frame from 00:00:00:00, and the file says so. `srt`/`vtt` subtitles (VTT with voice tags); `edl` CMX3600 (one event over the recording, a locator per line and per analysis moment) and `fcpxml` (FCPXML 1.10, a marker per line and per moment), moments coloured by type (EDL: select GREEN, unusable RED, trim YELLOW; FCPXML: select a completed to-do, unusable an open to-do, trim a chapter marker); `csv` one row per line, marker and moment; `selects_edl` CMX3600 with one event per `select` moment, source in/out on the frames the moment starts and ends in, strung out on a record timeline from 01:00:00:00; `analysis_csv` one row per line with its analysis (columns in docs/api.md). CSVs follow RFC 4180. 409 before the transcript exists, and for `selects_edl`/`analysis_csv` while the analysis is not complete. **A part of the recording** (`start`/`end`, seconds; either alone runs from the start or to the end): only the lines, words, markers and moments in it, cut at its edges (a word goes with the side its middle is on; a cut line says only its words), at the recording’s own times and timecode; the `edl` event and the `fcpxml` clip span the part. 422 at `query.start` for a start at or past the end of the recording, at `query.end` for an end not after the start; an end past the recording’s end is taken as its end. `wav`: the recording’s audio (of the part, cut on the sample) as 16-bit PCM WAV at the recording’s own sample rate and channels; it needs no transcript, so it is served while the recording is transcribed. `diarized_json`: the OpenAI shape `POST /v1/audio/transcriptions` answers with `response_format=diarized_json` (task, duration, text, segments with type, id, start, end, speaker label, text; usage), made from the current transcript revision, so every correction, reassignment, split, merge and restore shows in it; the diarizer’s turns are not stored, so each segment spans its words (in order, never overlapping); of a part, the duration is the part’s.',
          requestParams: {
            path: sessionParam,
            // editor's basics: `start`/`end`, a part of the recording; `wav`, its audio
            query: ExportQuery,
          },
          responses: {
            '200': {
              description: 'The file, as an attachment (`Content-Disposition` names it after the recording: take.edl, take.selects.edl, take.analysis.csv…; a part with its range: take_00h00m12.500s-00h00m48.000s.edl)',
              content: {
                'application/x-subrip': { schema: z.string() },
                'text/vtt': { schema: z.string() },
                'text/plain': { schema: z.string().meta({ description: 'edl and selects_edl' }) },
                'application/xml': { schema: z.string().meta({ description: 'fcpxml' }) },
                'text/csv': { schema: z.string().meta({ description: 'csv and analysis_csv (header=present)' }) },
                // corrections: diarized_json of the stored recording
                'application/json': { schema: z.string().meta({ description: 'diarized_json: {task, duration, text, segments[{type, id, start, end, speaker, text}], usage}' }) },
                'audio/wav': { schema: z.string().meta({ format: 'binary', description: 'wav: the recording’s audio (or the part), 16-bit PCM at its own rate and channels' }) },
              },
            },
            ...speechErrors(401, 404, 409, 422, 503),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/intelligence': {
        get: op({
          operationId: 'getAnalysis',
          summary: 'The Analysis document',
          description:
            'The newest analysis run of the recording (or `run_id`), filled in progressively while it runs: poll every few seconds until `intelligence.status` is `complete`. `none`: never analysed (stage `awaiting_transcript` while the transcript is being made; the run is queued when it completes); `unavailable`: no audio stream or no speech. When the newest run failed and an earlier one completed, the complete document is served with `last_failure`. Stages in order: `decoding`, `speech`, `events`, `conditions`, `prosody`, `baselines`, `quality` (lines published one by one with their measures; `perception`/`delivery` null), `listening` (each line published again whole with `perception`, `delivery` and `emphasis`), `speakers` (profiles), `moments`, `summary`; then `complete`. `timings.stages` has the seconds of each. Perception is estimated by rules from the measures (`source: "estimate"`) unless a model listened (`heard`, counted in `coverage.listened`); see docs/analysis.md.' + pollingNote,
          requestParams: { path: sessionParam, query: IntelligenceQuery, header: conditionalHeader },
          responses: { '200': etagged(AnalysisDocument, 'The Analysis document'), ...notModified, ...speechErrors(401, 404, 422) },
        }),
        post: op({
          operationId: 'startAnalysis',
          summary: 'Start a new analysis run',
          description:
            'Queues a run and answers 202 with it (`Location` is the document of that run). A run already queued or running is returned instead (`created: false`). 409 while the transcript is not complete.',
          requestParams: { path: sessionParam },
          responses: { '202': json(AnalysisRunStarted, 'The run'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/intelligence/runs': {
        get: op({
          operationId: 'listAnalysisRuns',
          summary: 'Analysis runs of the recording, newest first',
          requestParams: { path: sessionParam },
          responses: { '200': json(AnalysisRunList, 'Runs'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs': {
        get: op({ operationId: 'listDubs', summary: "The recording's dubs", requestParams: { path: sessionParam }, responses: { '200': json(z.object({ data: z.array(Dub) }), 'Dubs, oldest first'), ...speechErrors(401, 404, 422) } }),
        post: op({
          operationId: 'createDub',
          summary: 'Make a dub of the recording itself (JSON), or upload a dub with its lines or to be transcribed into lines (multipart)',
          description:
            "JSON `{\"source\": \"recording\"}`: a dub of the recording's own original audio with its current transcript's lines (corrected speakers and words) and its timebase; `preparing` with progress while the audio is converted to the dub's WAV, then `ready`. 409 while the recording has no completed transcript. Multipart: an uploaded dub mix or stem.",
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: DubFromRecording }, 'multipart/form-data': { schema: dubUploadBody } } },
          responses: { '201': json(Dub, 'The dub (status ready, or preparing while its lines are derived or its audio converted)'), ...speechErrors(401, 404, 409, 413, 415, 422, 507) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}': {
        get: op({ operationId: 'getDub', summary: 'Read a dub', requestParams: { path: dubParam }, responses: { '200': json(Dub, 'The dub'), ...speechErrors(401, 404, 422) } }),
        patch: op({
          operationId: 'updateDub',
          summary: 'Rename a dub or assign voices (per speaker, or its default)',
          requestParams: { path: dubParam },
          requestBody: { content: { 'application/json': { schema: DubPatch } } },
          responses: { '200': json(Dub, 'The dub'), ...speechErrors(401, 404, 415, 422) },
        }),
        delete: op({ operationId: 'deleteDub', summary: 'Delete a dub, its revisions and files (stops a running revoice)', requestParams: { path: dubParam }, responses: { '204': { description: 'Deleted' }, ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines': {
        get: op({ operationId: 'listDubLines', summary: "The dub's lines in time order, with their state against the current revision, review status and notes", requestParams: { path: dubParam, query: LinesQuery }, responses: { '200': json(z.object({ data: z.array(DubLine) }), 'Lines'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}': {
        get: op({ operationId: 'getDubLine', summary: 'Read a line', requestParams: { path: lineParam }, responses: { '200': json(DubLine, 'The line'), ...speechErrors(401, 404, 422) } }),
        patch: op({
          operationId: 'updateDubLine',
          summary: "Correct a line's text, set its voice or speed, move it within its neighbours, or set its review status",
          description:
            'The original text and timing are kept beside the new ones. A change of text, voice, timing or speed puts `review_status` back to `todo` (unless sent with it) and can be undone (`POST …/edits/undo`). All fields are checked before anything changes. 409 while the dub is still preparing, and when `base_revision` is given and the line has changed since that revision (its `revision` is higher: another window or client edited it; nothing changes — read the line again).',
          requestParams: { path: lineParam },
          requestBody: { content: { 'application/json': { schema: LinePatch } } },
          responses: { '200': json(DubLine, 'The line'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions': {
        get: op({ operationId: 'listDubRevisions', summary: 'Every revision (1 is the upload); the current one is marked', requestParams: { path: dubParam }, responses: { '200': json(z.object({ data: z.array(DubRevision) }), 'Revisions'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}': {
        get: op({ operationId: 'getDubRevision', summary: 'Read a revision, with its signed audio address', requestParams: { path: revisionParam }, responses: { '200': json(DubRevision, 'The revision'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/audio': {
        get: op({ operationId: 'getDubRevisionAudioAddress', summary: 'A signed one-hour address of the revision (WAV) for playback or download', requestParams: { path: revisionParam }, responses: { '200': json(DubAudioAddress, 'Signed address'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/file': {
        get: op({
          operationId: 'getDubRevisionFile',
          summary: 'The revision as WAV (signed address; no key)',
          security: [],
          requestParams: { path: revisionParam, query: z.object({ expires: z.string(), signature: z.string(), download: z.literal('1').optional() }) },
          responses: {
            '200': { description: 'The WAV bytes', content: { 'audio/wav': { schema: z.string().meta({ format: 'binary' }) } } },
            '206': { description: 'A byte range' },
            ...speechErrors(403),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/peaks': {
        get: op({ operationId: 'getDubRevisionPeaks', summary: "Waveform peaks of a revision, computed once", requestParams: { path: revisionParam }, responses: { '200': json(Peaks, 'Peaks'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/stems': {
        get: op({
          operationId: 'getDubRevisionStems',
          summary: 'A revision as stems: one zip of the mix, the background and one WAV per speaker',
          description:
            "Streamed zip (entries stored, not compressed; Content-Length given): `mix.wav` (the revision as stored), `background.wav` and `speaker-<name>.wav` per speaker (the recording's speaker name where it has one, else the id), all at the dub's rate, channels and sample format and the revision's length, so they line up at zero. A speaker's stem holds their lines' regions (each line's span, widened to the region a revoice or take wrote for it; where two speakers' lines overlap, the line that starts first) and silence elsewhere. The background is the mix outside every line and, under the lines, the uploaded music-and-effects stem (silence without one); a speaker's stem is the mix minus the background there. Summed sample by sample, the stems give the mix (exactly for integer formats unless a difference had to be clipped; to float rounding for f32). 409 while a dub from the recording is still being converted.",
          requestParams: { path: revisionParam },
          responses: {
            '200': { description: 'The zip', content: { 'application/zip': { schema: z.string().meta({ format: 'binary' }) } } },
            ...speechErrors(401, 404, 409, 422),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/restore': {
        post: op({
          operationId: 'restoreDubRevision',
          summary: 'Make a revision current again (the others stay); 409 while a revoice runs',
          requestParams: { path: revisionParam },
          responses: { '200': json(Dub, 'The dub'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/transcript/reassign': {
        post: op({
          operationId: 'reassignTranscriptSpeaker',
          summary: 'Give a line, or a range of its words, to another speaker',
          description:
            'The target is a speaker of the recording (`speaker`: a label, or `new` for a voice diarization missed) or a project speaker (`speaker_id`). A word range is cut out as its own line. Stored as a new transcript revision that becomes the session\'s transcript (exports and the session read it); a new analysis run is queued, and the voices whose speech changed are measured again in the background, updating the speaker map and the project\'s voice profiles.',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: SpeakerReassign } } },
          responses: { '200': json(TranscriptEditResult, 'The new revision and the session'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/transcript/merge': {
        post: op({
          operationId: 'mergeTranscriptSpeakers',
          summary: 'Merge one speaker of the recording into another',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: SpeakerMerge } } },
          responses: { '200': json(TranscriptEditResult, 'The new revision and the session'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/transcript/split': {
        post: op({
          operationId: 'splitTranscriptLine',
          summary: 'Split a line before a word',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: SegmentSplit } } },
          responses: { '200': json(TranscriptEditResult, 'The new revision and the session'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      // --- Script alignment ---
      '/v1/speech/transcriptions/{session_id}/transcript/align': {
        post: op({
          operationId: 'alignTranscriptScript',
          summary: 'Align a script to the recording: its words replace the recognized ones, with times from the audio',
          description:
            "The script is plain text, or lines beginning `NAME: ` (the name is the speaker of that line and of the unlabelled lines after it; a project speaker's name takes that speaker, another name the voice diarization heard on its lines, `S2` the label itself). Without any label, each word takes the speaker of the recognized line it overlaps most. The script's words are matched in order to the recognized ones; runs of three or more matches anchor it, and each stretch between anchors is force-aligned to its audio (PocketSphinx; words the dictionary lacks are pronounced by espeak-ng as the project vocabulary is). Words the aligner cannot place are spread over their stretch by length and counted as `interpolated`. Lines break at the script's line breaks, sentence ends, speaker changes and pauses of 1 s or more, at most 200 characters. The request returns when the alignment is stored (13.8 minutes took 65 s on a loaded 2-core machine: bench/alignment); a client that disconnects cancels it. On a team server a worker aligns it: the API node queues it as a job (kind `align_script`) and answers once the job settles, with the same document and the same errors (statuses and bodies) as the desktop; a client that disconnects cancels the job on the worker. Stored as a new transcript revision (op `align_script`): restore or undo it as any edit; a new analysis run is queued and the voices are measured again. Aligned lines teach the recognizer as corrected ones do (speaker adaptation along the script's words; its words the dictionary lacks join the project's vocabulary, `vocabulary_added`). 409 when the recording is not transcribed yet, when `base_revision` is stale (also checked again when the alignment is stored), or while another script is being aligned to it; 422 for an empty script or one over 1,000,000 bytes or 200,000 words; 503 without PocketSphinx.",
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: ScriptAlign } } },
          responses: { '200': json(ScriptAlignResult, 'The new revision, the session and how the words were placed'), ...speechErrors(401, 404, 409, 413, 415, 422, 503) },
        }),
      },
      // --- end script alignment ---
      '/v1/speech/transcriptions/{session_id}/transcript/revisions': {
        get: op({
          operationId: 'listTranscriptRevisions',
          summary: "The transcript's revisions (0 is the recognizer's)",
          requestParams: { path: sessionParam },
          responses: { '200': json(TranscriptRevisionList, 'Revisions, oldest first'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/transcript/revisions/{revision}': {
        get: op({
          operationId: 'getTranscriptRevision',
          summary: 'One revision with its transcript',
          requestParams: { path: sessionParam.extend({ revision: z.number().int().min(0) }) },
          responses: { '200': json(TranscriptRevisionDetail, 'The revision'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/transcript/revisions/{revision}/restore': {
        post: op({
          operationId: 'restoreTranscriptRevision',
          summary: 'Make an earlier revision current again (as a new revision: undo)',
          description: "The recording's speakers get the project speakers they had in that revision back.",
          requestParams: { path: sessionParam.extend({ revision: z.number().int().min(0) }) },
          requestBody: { content: { 'application/json': { schema: RevisionRestore } } },
          responses: { '200': json(TranscriptEditResult, 'The new revision and the session'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoice': {
        post: op({
          operationId: 'revoiceDub',
          summary: 'Voice corrected lines again; the rest of the dub is untouched',
          description: revoiceDescription,
          requestParams: { path: dubParam, query: RevoiceQuery },
          responses: {
            '200': json(Revoice, 'Finished (complete or failed), or no_op'),
            '202': { ...json(Revoice, 'Still running: poll the Location'), headers: { Location: { schema: { type: 'string' }, description: 'The revoice to poll' } } },
            ...speechErrors(401, 404, 409, 422),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices': {
        get: op({ operationId: 'listRevoices', summary: 'Revoices of the dub, newest first', requestParams: { path: dubParam }, responses: { '200': json(z.object({ data: z.array(Revoice) }), 'Revoices'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices/{revoice_id}': {
        get: op({
          operationId: 'getRevoice',
          summary: 'Follow a revoice: status, progress, each line as it is done, and the new revision once complete',
          requestParams: { path: dubParam.extend({ revoice_id: z.uuid() }) },
          responses: { '200': json(Revoice, 'The revoice'), ...speechErrors(401, 404, 422) },
        }),
      },
      // ---- dubbing workflow: split, merge, undo/redo, notes, exports ----
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/split': {
        post: op({ operationId: 'splitDubLine',
          summary: 'Split a line in two at a word, a time, or both',
          description:
            "The first part keeps the line's id, the second gets a new one. Each part keeps the original performance under it (`original_text`, `original_start`, `original_end` split at the same moment) and the line as it was in `history`, so splitting alone never makes a line need a revoice (unless it was voiced). Undo with `POST …/edits/undo`.",
          requestParams: { path: lineParam },
          requestBody: { content: { 'application/json': { schema: LineSplit } } },
          responses: { '200': json(z.object({ lines: z.array(DubLine) }), 'The two lines'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/merge': {
        post: op({ operationId: 'mergeDubLines',
          summary: 'Merge the next line (same speaker) into this one',
          description: "The merged line keeps this line's id and voice; texts and originals are joined; both lines as they were are kept in `history`, and the notes of both show on it. Undo with `POST …/edits/undo`.",
          requestParams: { path: lineParam },
          requestBody: { content: { 'application/json': { schema: LineMerge } } },
          responses: { '200': json(DubLine, 'The merged line'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/notes': {
        get: op({ operationId: 'listDubLineNotes', summary: "A line's notes, oldest first", requestParams: { path: lineParam }, responses: { '200': json(z.object({ data: z.array(LineNote) }), 'Notes'), ...speechErrors(401, 404, 422) } }),
        post: op({ operationId: 'addDubLineNote',
          summary: 'Add a note to a line (its author is the API key\'s name, or "studio")',
          requestParams: { path: lineParam },
          requestBody: { content: { 'application/json': { schema: LineNoteInput } } },
          responses: { '201': json(LineNote, 'The note'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits': {
        get: op({ operationId: 'listDubLineEdits',
          summary: "The dub's line edits (correct, split, merge), oldest first, with which are undone",
          requestParams: { path: dubParam },
          responses: { '200': json(z.object({ data: z.array(LineEdit) }), 'Edits'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits/undo': {
        post: op({ operationId: 'undoDubLineEdit',
          summary: 'Undo the latest line edit still in force',
          description: 'The lines it made are replaced by the lines it took, exactly as they were (text, timing, voice, speed, review status, history). 409 when there is nothing to undo.',
          requestParams: { path: dubParam },
          responses: { '200': json(z.object({ edit: LineEdit, lines: z.array(DubLine) }), 'The edit undone and the lines restored'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/edits/redo': {
        post: op({ operationId: 'redoDubLineEdit',
          summary: 'Redo the earliest undone line edit (a new edit ends redo)',
          requestParams: { path: dubParam },
          responses: { '200': json(z.object({ edit: LineEdit, lines: z.array(DubLine) }), 'The edit redone and its lines'), ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/export': {
        get: op({ operationId: 'exportDub',
          summary: 'Export a dub: ADR cue sheet (cues_csv), EDL or FCPXML with a marker per revoiced line, or the stem of the revoiced lines (stem_wav)',
          description:
            "Times use the recording's timebase (PATCH …/media; without one 25 fps non-drop from 00:00:00:00, and the file says so). `cues_csv`: one cue per line in time order (columns in docs/dubbing.md). `edl`/`fcpxml`: one event/clip over the current revision (named as its download, `<dub>-r<N>.wav`) with a locator/marker per line the current revision carries revoiced. `stem_wav`: the current revision at its own format and length with every sample outside the revoiced lines' regions set to digital silence. 409 while the dub is preparing.",
          requestParams: { path: dubParam, query: DubExportQuery },
          responses: {
            '200': {
              description: 'The file, as an attachment named after the dub (<dub>.cues.csv, <dub>.edl, <dub>.fcpxml, <dub>.r<N>.stem.wav)',
              content: {
                'text/csv': { schema: z.string().meta({ description: 'cues_csv (header=present)' }) },
                'text/plain': { schema: z.string().meta({ description: 'edl' }) },
                'application/xml': { schema: z.string().meta({ description: 'fcpxml' }) },
                'audio/wav': { schema: z.string().meta({ format: 'binary', description: 'stem_wav' }) },
              },
            },
            ...speechErrors(401, 404, 409, 422),
          },
        }),
      },
      // ---- end of the dubbing workflow block ----
      ...cueSheetPaths(op, dubParam, speechErrors),
      // ---- dub takes ----
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/takes': {
        post: op({
          operationId: 'renderDubLineTakes',
          summary: 'Render takes of a line to choose from (voices and speeds), or upload a recording of it',
          description:
            "**multipart/form-data: a recorded take.** `file` is a recording of the line (any audio ffmpeg decodes) that starts `count_in` seconds (default 0) before the line: it is decoded to the dub's sample rate (mono), the count-in cut off, kept at the actor's timing from the line's start, cut at the line's end with a 10 ms fade (or padded with silence), brought with one gain to the original line's BS.1770 loudness (-23 LUFS when the original has none) with peaks kept at or under -0.1 dBFS, and placed in the line's slot (over the background stem when the dub has one), with the revoice's crossfade on each side. Answers 201 with the take (`source: recorded`, `ready`) at once; it stands beside the synthesized takes (neither replaces the other) and is chosen like any take. 415 for a file that is not decodable audio; 422 for a missing file, a `count_in` outside 0–30, or a recording no longer than its count-in (`recording_too_short`); 409 while the dub is preparing or when the line changed meanwhile. **application/json: synthesized takes.** Renders `count` takes of the line as it is now, as a job (the revoice's fit, loudness match and crossfades): each speed with each voice, speeds outer, distinct pairs only; `voices` default to the line's voice, `speeds` to the line's speed, then 0.9, 1.1, 0.95, 1.05 (null: fitted to the slot). The installed engines read a text the same way every time, so takes differ by voice and speed only; asking for more takes than distinct pairs is 422 `too_few_variants`. Waits up to `?wait=` seconds (default 20): 200 with the takes when all are rendered (`ready` or `failed`), else 202 (`Location`: the line's takes; poll it). Each take's `audio` plays the line's region as the dub would sound with it; the current revision's audio over `render.region` is the original to compare it with (A/B). The new takes replace the line's earlier ones: those no revision has put in are removed (rows and audio). A line's takes are also removed once a change of its text or timing, or its neighbours' timing, means they could not be put in (a change of its voice or speed alone leaves them); a take a revision has put in stays as long as the dub. 409 while the dub is preparing; 422 for a bad count, voice or speed (nothing is stored).",
          requestParams: { path: lineParam, query: TakesQuery },
          requestBody: { content: { 'application/json': { schema: TakesRequest }, 'multipart/form-data': { schema: RecordedTakeUpload } } },
          responses: {
            '200': json(z.object({ data: z.array(DubTake) }), 'The takes, rendered'),
            '201': json(z.object({ data: z.array(DubTake) }), 'The recorded take, stored and ready'),
            '202': json(z.object({ data: z.array(DubTake) }), 'The takes, still rendering'),
            ...speechErrors(401, 404, 409, 415, 422),
          },
        }),
        get: op({
          operationId: 'listDubLineTakes',
          summary: "A line's takes, oldest first, each with its status, how it came out, whether it is stale or chosen, and a signed audio address",
          requestParams: { path: lineParam },
          responses: { '200': json(z.object({ data: z.array(DubTake) }), 'Takes'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}/take': {
        put: op({
          operationId: 'chooseDubLineTake',
          summary: "Put a take in: it becomes the line's audio in a new revision",
          description:
            "A new revision (source `take`, `take_id`) is the current one copied with only the take's `render.region` rewritten: every other sample is identical. The line takes the take's voice and speed (an undoable correction when they differ), its rendering records `take_id`, and its review goes back to `todo`. 422 `take_not_found` for a take the line does not have (or no longer has: newer takes or a change of the line removed it); 409 when the take is not rendered, was rendered for the line as it was before a change of its text or timing (or its neighbours'), while a revoice runs, or when the current revision changed meanwhile.",
          requestParams: { path: lineParam },
          requestBody: { content: { 'application/json': { schema: TakeChoice } } },
          responses: { '200': json(z.object({ line: DubLine, revision: DubRevision }), 'The line and the new revision'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/takes/{take_id}/file': {
        get: op({
          operationId: 'getDubTakeFile',
          summary: "A take's audio as WAV (signed address; no key): the line's region as the dub would sound with it",
          security: [],
          requestParams: { path: dubParam.extend({ take_id: z.uuid() }), query: z.object({ expires: z.string(), signature: z.string(), download: z.literal('1').optional() }) },
          responses: {
            '200': { description: 'The WAV bytes', content: { 'audio/wav': { schema: z.string().meta({ format: 'binary' }) } } },
            '206': { description: 'A byte range' },
            ...speechErrors(403),
          },
        }),
      },
      // ---- end of the dub takes block ----
      // ---- editor's basics: "not this person" ----
      '/v1/speech/transcriptions/{session_id}/speakers/{label}/reject-match': {
        post: op({
          operationId: 'rejectSpeakerMatch',
          summary: 'Reject a speaker match: this voice is not that project speaker',
          description:
            'The recording’s speaker `label` was matched by voice to a project speaker the project already knew (`speaker_map[label].matched`); the editor says it is someone else. The rejection is remembered (the voice is never matched to that speaker again, also when the recording is enrolled again); the voice takes the next known speaker it matches that no other voice of the recording has, or becomes a new project speaker (`Speaker N`), and the rejected speaker’s profile is pooled again without it. Every export and the session name the voice by its new speaker at once. 404: no such session, or the label has no project speaker; 409 `not_a_match` when the label was not matched by voice (new in this recording, or given to the speaker by hand), `stale_match` when `speaker_id` is not the speaker it is matched to now, `no_profile` before the voice is measured.',
          requestParams: { path: sessionParam.extend({ label: z.string().meta({ description: 'A speaker label of the recording (S1, S2…)' }) }) },
          requestBody: { content: { 'application/json': { schema: SpeakerMatchReject } } },
          responses: { '200': json(SpeakerMatchRejected, 'The rejected speaker and the speaker map now'), ...speechErrors(401, 404, 409, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/markers': {
        get: op({
          operationId: 'listEditorMarkers',
          summary: "The editor's own markers on the recording, in time order",
          requestParams: { path: sessionParam },
          responses: { '200': json(EditorMarkerList, 'The markers'), ...speechErrors(401, 404, 422) },
        }),
        post: op({
          operationId: 'createEditorMarker',
          summary: 'Put a marker on the recording',
          description:
            'A time (seconds, within the recording) and a name. Kept with the recording and listed in its exports with the lines and moments: an EDL locator, an FCPXML marker and a CSV row each (kind `marker`), also in an export of a part that holds it. 422 at `body.time` past the end of the recording.',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: EditorMarkerCreate } } },
          responses: { '201': json(EditorMarker, 'The marker (Location names it)'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/markers/{marker_id}': {
        patch: op({
          operationId: 'updateEditorMarker',
          summary: 'Rename or move a marker',
          requestParams: { path: sessionParam.extend({ marker_id: z.uuid() }) },
          requestBody: { content: { 'application/json': { schema: EditorMarkerUpdate } } },
          responses: { '200': json(EditorMarker, 'The marker'), ...speechErrors(401, 404, 415, 422) },
        }),
        delete: op({
          operationId: 'deleteEditorMarker',
          summary: 'Remove a marker',
          requestParams: { path: sessionParam.extend({ marker_id: z.uuid() }) },
          responses: { '204': { description: 'Removed' }, ...speechErrors(401, 404, 422) },
        }),
      },
      // ---- end of the editor's basics block ----
      '/v1/speech/models/whisper': {
        get: op({
          operationId: 'listWhisperModels',
          summary: 'Whisper models: the catalogue, what is installed, downloads in progress',
          description:
            "Catalogue models (whisper.cpp ggml files with published SHA-1 and size) and any other ggml file in the models folder. Installed models are recognizers in /v1/audio/models. On a team server (`shared: true`) installed models are the team's: downloaded through any node, kept on the team's storage, listed by every node; files put in a node's folder by hand are not listed.",
          responses: { '200': json(WhisperModelList, 'Models'), ...speechErrors(401) },
        }),
      },
      '/v1/speech/models/whisper/{name}': {
        get: op({ operationId: 'getWhisperModel', summary: 'One Whisper model (poll it for download progress)', requestParams: { path: whisperParam }, responses: { '200': json(WhisperModel, 'The model'), ...speechErrors(401, 404, 422) } }),
        delete: op({ operationId: 'deleteWhisperModel', summary: 'Delete an installed model and any partial download (on a team server: for every node, and a download running on any node is cancelled and not recorded)', requestParams: { path: whisperParam }, responses: { '204': { description: 'Deleted' }, ...speechErrors(401, 403, 404, 409, 422) } }),
      },
      '/v1/speech/models/whisper/{name}/download': {
        post: op({
          operationId: 'downloadWhisperModel',
          summary: 'Download (or resume downloading) a catalogue model',
          description:
            'Answers 202 once the server answered and the disk has room, then downloads in the background: poll GET /v1/speech/models/whisper/{name}. A partial download is resumed with an HTTP Range request; the file is installed (renamed into place) only when its SHA-1 matches the published one, otherwise it is deleted and `download.error.code` is `checksum_mismatch`. 200 when the model is already installed and verified, or already downloading. Downloads come from TAKELINE_WHISPER_BASE_URL (default Hugging Face). On a team server the verified file then goes to the team\'s storage (the download ends once it is recorded there; `storage_error` when the storage refuses it) and every node lists it. A team\'s download is the team\'s: one runs at a time per model, on the node asked first (asked through any node meanwhile: 202 with that download), which records its progress in the database about once a second, so every node shows it; a node that stops reporting for 15 s (killed) leaves it `failed` with `interrupted`, and a new download can start.',
          requestParams: { path: whisperParam },
          responses: { '202': json(WhisperModel, 'Downloading'), '200': json(WhisperModel, 'Already installed or downloading'), ...speechErrors(401, 403, 404, 409, 422, 502, 507) },
        }),
        delete: op({
          operationId: 'cancelWhisperModelDownload',
          summary: 'Stop a download; its bytes are kept for resuming unless discard=true',
          description:
            "On a team server, through any node: the node running the download stops it within about a second, and the answer comes once it has. The bytes kept are that node's partial file (a new download resumes from them only when it runs there); discard=true deletes it.",
          requestParams: { path: whisperParam, query: WhisperDownloadCancel },
          responses: { '200': json(WhisperModel, 'The model'), ...speechErrors(401, 403, 404, 409, 422) },
        }),
      },
      '/v1/speech/models/whisper/{name}/verify': {
        post: op({
          operationId: 'verifyWhisperModel',
          summary: "Check an installed model's SHA-1 against the published one (for files put in place by hand; on a team server: the stored file against the sha256 recorded at its download, 502 when damaged)",
          requestParams: { path: whisperParam },
          responses: { '200': json(WhisperModel, 'The model with `verified`'), ...speechErrors(401, 403, 404, 409, 422, 502) },
        }),
      },
      '/v1/audio/models': {
        get: op({ operationId: 'listAudioModels', summary: 'Installed speech models', responses: { '200': json(SpeechModelList, 'Models'), ...audioErrors(401) } }),
      },
      '/v1/audio/transcriptions': {
        post: op({
          operationId: 'createTranscription',
          summary: 'Transcribe a recording (OpenAI-compatible)',
          description:
            'Answers once the recording is transcribed (or streams it, `stream=true`). On a team server the API node queues the recognition as a transcription job for a worker and answers from its record: deltas arrive as the worker publishes them (read every 250 ms), a client that disconnects cancels the job on whichever worker runs it, and a worker’s failure is a 500 (`server_error`, code `transcription_failed`) whose message says why.',
          requestBody: { content: { 'multipart/form-data': { schema: openAiBody } } },
          responses: {
            '200': {
              description: 'json: {text, usage}; verbose_json; diarized_json (segments with speaker, start, end, text; each spans its speaker turn, in order, never overlapping); text/srt/vtt as text; text/event-stream when stream=true',
              headers: { 'X-Session-Id': { schema: { type: 'string' }, description: 'The session the call was kept as (absent with store=false)' } },
              content: { 'application/json': {}, 'text/plain': {}, 'text/event-stream': {} },
            },
            ...audioErrors(400, 401, 404, 413, 415, 500, 507),
          },
        }),
      },
      '/v1/audio/speech': {
        post: op({
          operationId: 'createSpeech',
          summary: 'Speak text (OpenAI-compatible text to speech)',
          description:
            'Streams the audio as it is synthesized, sentence by sentence (chunked transfer). 24 kHz mono in every format; wav and flac carry "length unknown" headers. The `X-Voice` header names the voice used (`<model>/<voice>`). With `timestamp_granularities: ["word"]` (an extension) the answer is JSON instead (`SpeechWithWords`): the whole audio in base64 and every word\'s start and end in seconds, from the voice\'s own phone timings (festival\'s voices) or else a forced alignment of the audio (PocketSphinx; 503 when neither is available).',
          requestBody: { content: { 'application/json': { schema: SpeechRequest } } },
          responses: {
            '200': {
              description: 'The audio, or with `timestamp_granularities` JSON with the audio and its words',
              headers: { 'X-Voice': { schema: { type: 'string' }, description: 'The voice that spoke, e.g. festival-hts/slt' } },
              content: {
                ...Object.fromEntries(
                  ['audio/mpeg', 'audio/ogg', 'audio/aac', 'audio/flac', 'audio/wav', 'audio/L16'].map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }]),
                ),
                'application/json': { schema: SpeechWithWords },
              },
            },
            ...audioErrors(400, 401, 404, 413, 415, 500, 503),
          },
        }),
      },
      '/v1/models': {
        get: op({ operationId: 'listModels', summary: 'Models in OpenAI\'s list shape', responses: { '200': json(OpenAIModelList, 'Models'), ...audioErrors(401) } }),
      },
      '/v1/models/{model}': {
        get: op({ operationId: 'retrieveModel', summary: 'One model', requestParams: { path: z.object({ model: z.string() }) }, responses: { '200': json(OpenAIModel, 'Model'), ...audioErrors(401, 404) } }),
      },
    },
  }));
}
