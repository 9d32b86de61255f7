import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import {
  AudioAddress,
  DetailError,
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
  Session,
  SessionPage,
  SessionSummary,
  SpeechModelList,
  ValidationError,
} from '../../shared/schemas';
import { UploadFields } from '../http/routes/transcriptions';
import { OpenAITranscriptionFields } from '../transcription/openai-endpoint';
import { EXPORT_FORMATS } from '../export/types';

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
  403: 'Forbidden (Host/Origin not allowed, or an invalid or expired signature)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Not decodable audio or video, or wrong Content-Type',
  500: 'Internal error',
};

const sessionParam = z.object({ session_id: z.uuid().meta({ description: 'Transcription session id' }) });
const projectParam = z.object({ project: z.string().meta({ description: 'Project id or key' }) });

const uploadBody = UploadFields.extend({ file: z.string().meta({ format: 'binary', description: 'The recording' }) });
const openAiBody = OpenAITranscriptionFields.omit({ timestamp_granularities: true, known_speaker_names: true, known_speaker_references: true, stream: true, chunking_strategy: true })
  .extend({
    file: z.string().meta({ format: 'binary', description: 'The recording' }),
    stream: z.boolean().optional().meta({ description: 'Server-Sent Events: transcript.text.delta per decoded segment, then transcript.text.done' }),
    'timestamp_granularities[]': z.array(z.enum(['word', 'segment'])).optional().meta({ description: 'With verbose_json: word and/or segment timings' }),
    chunking_strategy: z.string().optional().meta({ description: '"auto" or a JSON server_vad object' }),
    'known_speaker_names[]': z.array(z.string()).optional(),
    'known_speaker_references[]': z.array(z.string()).optional().meta({ description: 'Data URLs of short audio clips, one per name' }),
  });

const op = (o: ZodOpenApiOperationObject) => o;

export function openApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Takeline API',
      version: '1.0.0',
      description:
        'Local speech service of the Takeline studio. Errors under /v1/speech/ use FastAPI\'s shape ({"detail": …}, 422 for invalid input); under /v1/audio/ and /v1/models OpenAI\'s error envelope.',
    },
    servers: [{ url: 'http://127.0.0.1:8765' }],
    security: [{ BearerAuth: [] }, { ApiKeyHeader: [] }],
    components: {
      securitySchemes: {
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer tl_…' },
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    paths: {
      '/healthz': {
        get: op({ summary: 'Liveness', security: [], responses: { '200': json(z.object({ status: z.literal('ok') }), 'Running') } }),
      },
      '/v1/openapi.json': {
        get: op({ summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': {} } }, ...speechErrors(401) } }),
      },
      '/v1/speech/projects': {
        get: op({ summary: 'List projects', responses: { '200': json(z.object({ data: z.array(Project) }), 'Projects, newest first'), ...speechErrors(401) } }),
        post: op({
          summary: 'Create a project',
          requestBody: { content: { 'application/json': { schema: ProjectCreate } } },
          responses: { '201': json(Project, 'Created'), ...speechErrors(401, 409, 413, 415, 422) },
        }),
      },
      '/v1/speech/projects/{project}': {
        get: op({
          summary: 'Read a project with its known speakers',
          requestParams: { path: projectParam },
          responses: { '200': json(ProjectDetail, 'The project'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/projects/{project}/speakers/{speaker_id}': {
        patch: op({
          summary: 'Name a project speaker',
          requestParams: { path: projectParam.extend({ speaker_id: z.uuid() }) },
          requestBody: { content: { 'application/json': { schema: ProjectSpeakerUpdate } } },
          responses: { '200': json(ProjectSpeaker, 'The speaker'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions': {
        get: op({
          summary: 'List transcription sessions, newest first',
          requestParams: { query: PageQuery.extend({ project: z.string().optional().meta({ description: 'Project id or key' }) }) },
          responses: { '200': json(SessionPage, 'A page of sessions'), ...speechErrors(401, 404, 422) },
        }),
        post: op({
          summary: 'Upload a recording; it is transcribed by a background job',
          requestBody: { content: { 'multipart/form-data': { schema: uploadBody } } },
          responses: { '201': json(SessionSummary, 'The new session (status queued)'), ...speechErrors(401, 413, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}': {
        get: op({ summary: 'Read a session with its transcript', requestParams: { path: sessionParam }, responses: { '200': json(Session, 'The session'), ...speechErrors(401, 404, 422) } }),
        delete: op({ summary: 'Delete a session, its rows and files', requestParams: { path: sessionParam }, responses: { '204': { description: 'Deleted' }, ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/media': {
        patch: op({
          summary: 'Set the timebase',
          description: 'Omitted fields keep their value; the first time, frame_rate is required and the rest default (drop_frame false, start_timecode null, tape "").',
          requestParams: { path: sessionParam },
          requestBody: { content: { 'application/json': { schema: MediaPatch } } },
          responses: { '200': json(MediaResponse, 'The timebase'), ...speechErrors(401, 404, 415, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/audio': {
        get: op({
          summary: 'A signed one-hour address of the original audio',
          requestParams: { path: sessionParam },
          responses: { '200': json(AudioAddress, 'Signed address'), ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/audio/original': {
        get: op({
          summary: 'The original file (signed address; no key)',
          security: [],
          requestParams: { path: sessionParam, query: z.object({ expires: z.string(), signature: z.string() }) },
          responses: {
            '200': { description: 'The original bytes', content: { 'audio/*': { schema: z.string().meta({ format: 'binary' }) } } },
            '206': { description: 'A byte range' },
            ...speechErrors(403),
          },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/peaks': {
        get: op({ summary: 'Waveform peaks, computed once', requestParams: { path: sessionParam }, responses: { '200': json(Peaks, 'Peaks'), ...speechErrors(401, 404, 422) } }),
      },
      '/v1/speech/transcriptions/{session_id}/export': {
        get: op({
          summary: 'Export for editors (srt, vtt, edl, fcpxml, csv)',
          requestParams: { path: sessionParam, query: z.object({ format: z.enum(EXPORT_FORMATS) }) },
          responses: { '200': { description: 'The file, as an attachment', content: { 'text/plain': {}, 'application/xml': {}, 'text/csv': {} } }, ...speechErrors(401, 404, 409, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/intelligence': {
        get: op({
          summary: 'The analysis document (analysis stages are not built yet: status none, or unavailable without speech)',
          requestParams: { path: sessionParam },
          responses: { '200': { description: 'Analysis document {id, intelligence, speaker_map, project}', content: { 'application/json': {} } }, ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoice': {
        post: op({
          summary: 'Voice corrected dub lines again (dubs cannot be created yet: 404)',
          requestParams: { path: sessionParam.extend({ dub_id: z.string() }) },
          responses: { '200': { description: 'Revoice result', content: { 'application/json': {} } }, ...speechErrors(401, 404, 422) },
        }),
      },
      '/v1/audio/models': {
        get: op({ summary: 'Installed speech models', responses: { '200': json(SpeechModelList, 'Models'), ...audioErrors(401) } }),
      },
      '/v1/audio/transcriptions': {
        post: op({
          summary: 'Transcribe a recording (OpenAI-compatible)',
          requestBody: { content: { 'multipart/form-data': { schema: openAiBody } } },
          responses: {
            '200': {
              description: 'json: {text, usage}; verbose_json; diarized_json; text/srt/vtt as text; text/event-stream when stream=true',
              headers: { 'X-Session-Id': { schema: { type: 'string' }, description: 'The session the call was kept as' } },
              content: { 'application/json': {}, 'text/plain': {}, 'text/event-stream': {} },
            },
            ...audioErrors(400, 401, 404, 413, 415, 500),
          },
        }),
      },
      '/v1/models': {
        get: op({ summary: 'Models in OpenAI\'s list shape', responses: { '200': json(OpenAIModelList, 'Models'), ...audioErrors(401) } }),
      },
      '/v1/models/{model}': {
        get: op({ summary: 'One model', requestParams: { path: z.object({ model: z.string() }) }, responses: { '200': json(OpenAIModel, 'Model'), ...audioErrors(401, 404) } }),
      },
    },
  });
}
