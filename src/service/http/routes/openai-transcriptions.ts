import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { InvalidInputError, issue, ServiceError } from '../../errors';
import { parseInput } from '../../validation';
import { readMultipart, singleField, singleFile, type MultipartForm } from '../multipart';
import { ProjectKey, SpeakerCount } from '../../../shared/schemas';
import type { SpeakerTurn, Transcript } from '../../speech/types';
import { renderSubtitles } from '../../transcription/subtitles';
import { assertSpeakerRange, speakerHints } from '../../transcription/speaker-hints';
import { DEFAULT_PROJECT_KEY, transcribe } from '../../transcription/transcribe';
import { uploadProjectKey } from '../scope';
import { diarizedJsonResponse, diarizedSegments, jsonResponse, usageOf, verboseJsonResponse } from '../../transcription/openai-formats';

export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt', 'diarized_json'] as const;

const ChunkingStrategy = z.union([
  z.literal('auto'),
  z.strictObject({
    type: z.literal('server_vad'),
    prefix_padding_ms: z.number().int().min(0).max(5000).optional(),
    silence_duration_ms: z.number().int().min(0).max(10_000).optional(),
    threshold: z.number().min(0).max(1).optional(),
  }),
]);

export const OpenAITranscriptionFields = z.object({
  model: z.string().min(1),
  language: z.string().max(32).optional(),
  prompt: z.string().max(16_384).optional(),
  response_format: z.enum(RESPONSE_FORMATS).default('json'),
  temperature: z.coerce.number().min(0).max(1).default(0),
  stream: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
  // As OpenAI's Responses API names it: false keeps nothing (no session, analysis or adaptation).
  store: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
  timestamp_granularities: z.array(z.enum(['word', 'segment'])).max(2).optional(),
  chunking_strategy: ChunkingStrategy.optional(),
  known_speaker_names: z.array(z.string().min(1).max(200)).max(4).optional(),
  known_speaker_references: z.array(z.string().regex(/^data:audio\/[a-z0-9.+-]+;base64,/i, 'must be a data URL of audio')).max(4).optional(),
  project_key: ProjectKey.optional(),
  min_speakers: SpeakerCount.optional(),
  max_speakers: SpeakerCount.optional(),
});

function repeated(form: MultipartForm, name: string): string[] | undefined {
  const values = [...(form.fields.get(`${name}[]`) ?? []), ...(form.fields.get(name) ?? [])];
  return values.length ? values : undefined;
}

function parseChunking(raw: string | undefined): unknown {
  if (raw === undefined || raw === 'auto') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidInputError([issue(['body', 'chunking_strategy'], 'chunking_strategy must be "auto" or a JSON object', 'json_invalid', raw)]);
  }
}

function readFields(form: MultipartForm) {
  const fields = parseInput(
    OpenAITranscriptionFields,
    {
      model: singleField(form, 'model'),
      language: singleField(form, 'language'),
      prompt: singleField(form, 'prompt'),
      response_format: singleField(form, 'response_format'),
      temperature: singleField(form, 'temperature'),
      stream: singleField(form, 'stream'),
      store: singleField(form, 'store'),
      timestamp_granularities: repeated(form, 'timestamp_granularities'),
      chunking_strategy: parseChunking(singleField(form, 'chunking_strategy')),
      known_speaker_names: repeated(form, 'known_speaker_names'),
      known_speaker_references: repeated(form, 'known_speaker_references'),
      project_key: singleField(form, 'project_key'),
      min_speakers: singleField(form, 'min_speakers'),
      max_speakers: singleField(form, 'max_speakers'),
    },
    'body',
  );
  assertSpeakerRange(fields);
  if (fields.timestamp_granularities && fields.response_format !== 'verbose_json') {
    throw new InvalidInputError([
      issue(['body', 'timestamp_granularities'], 'timestamp_granularities requires response_format=verbose_json', 'value_error', fields.timestamp_granularities),
    ]);
  }
  if ((fields.known_speaker_names?.length ?? 0) !== (fields.known_speaker_references?.length ?? 0)) {
    throw new InvalidInputError([
      issue(['body', 'known_speaker_references'], 'Send one reference per known speaker name', 'value_error', fields.known_speaker_references ?? null),
    ]);
  }
  if (fields.stream && (fields.response_format === 'text' || fields.response_format === 'srt' || fields.response_format === 'vtt')) {
    throw new InvalidInputError([
      issue(['body', 'stream'], 'stream=true works with response_format json, verbose_json or diarized_json', 'value_error', true),
    ]);
  }
  return fields;
}

type Fields = ReturnType<typeof readFields>;

/** OpenAI's server_vad knobs mapped onto the Silero detector; `auto` keeps its defaults. */
function vadSettings(strategy: Fields['chunking_strategy']) {
  if (!strategy || strategy === 'auto') return undefined;
  return {
    threshold: strategy.threshold,
    minSilenceSeconds: strategy.silence_duration_ms !== undefined ? strategy.silence_duration_ms / 1000 : undefined,
    speechPadSeconds: strategy.prefix_padding_ms !== undefined ? strategy.prefix_padding_ms / 1000 : undefined,
  };
}

function sendResult(res: Response, fields: Fields, transcript: Transcript, turns: SpeakerTurn[], sessionId: string | null, fileName: string): void {
  if (sessionId) res.setHeader('X-Session-Id', sessionId);
  switch (fields.response_format) {
    case 'text':
      res.type('text/plain; charset=utf-8').send(transcript.text + '\n');
      return;
    case 'srt':
    case 'vtt': {
      const rendered = renderSubtitles(fields.response_format, transcript, { id: sessionId ?? '', fileName });
      res.type(rendered.contentType).send(rendered.body);
      return;
    }
    case 'verbose_json': {
      const granularities = fields.timestamp_granularities ?? ['segment'];
      res.json(
        verboseJsonResponse(transcript, {
          words: granularities.includes('word'),
          segments: granularities.includes('segment'),
          temperature: fields.temperature,
          sessionId,
        }),
      );
      return;
    }
    case 'diarized_json':
      res.json(diarizedJsonResponse(transcript, turns));
      return;
    default:
      res.json(jsonResponse(transcript));
  }
}

/**
 * `POST /v1/audio/transcriptions`, compatible with OpenAI's SDKs: the form is read and checked here, the
 * work is `transcribe`'s (kept as a session, its id in X-Session-Id, unless `store=false`). A client that
 * disconnects cancels it.
 */
export function openAiTranscriptionsHandler(ctx: ServiceContext) {
  return async (req: Request, res: Response) => {
    const form = await readMultipart(req, ctx.layout.uploads, { maxFileBytes: ctx.config.maxUploadBytes });
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    const sse = (event: object) => res.write(`data: ${JSON.stringify(event)}\n\n`);
    try {
      const fields = readFields(form);
      const stream = fields.stream;
      const sent: string[] = [];
      const result = await transcribe(
        ctx,
        {
          file: singleFile(form, 'file'),
          projectKey: await uploadProjectKey(ctx, res, fields.project_key, DEFAULT_PROJECT_KEY),
          model: fields.model,
          language: fields.language,
          prompt: fields.prompt,
          temperature: fields.temperature,
          speakers: speakerHints(fields),
          vad: vadSettings(fields.chunking_strategy),
          knownSpeakerNames: fields.known_speaker_names ?? [],
          knownSpeakerReferences: fields.known_speaker_references ?? [],
          store: fields.store,
        },
        {
          signal: controller.signal,
          onStarted: (id) => {
            if (!stream) return;
            res.status(200);
            res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
            res.setHeader('Cache-Control', 'no-cache');
            if (id) res.setHeader('X-Session-Id', id);
            res.flushHeaders();
          },
          onText: (text) => {
            if (!stream) return;
            sse({ type: 'transcript.text.delta', delta: (sent.length ? ' ' : '') + text });
            sent.push(text);
          },
        },
      );
      if (stream) {
        if (fields.response_format === 'diarized_json') for (const segment of diarizedSegments(result.transcript, result.turns)) sse(segment);
        // The final text is built from what was sent, so a client that concatenates deltas sees the same.
        sse({ type: 'transcript.text.done', text: sent.join(' '), usage: usageOf(result.transcript) });
        res.end();
        return;
      }
      sendResult(res, fields, result.transcript, result.turns, result.sessionId, result.fileName);
    } catch (error) {
      if (res.headersSent) {
        if (!res.writableEnded) {
          sse({ type: 'error', error: { message: 'Transcription failed.', type: 'server_error', param: null, code: null } });
          res.end();
        }
        if (!(error instanceof ServiceError) && !controller.signal.aborted) ctx.log(`stream failed: ${(error as Error)?.stack ?? String(error)}`);
        return;
      }
      throw error;
    } finally {
      form.cleanup();
    }
  };
}
