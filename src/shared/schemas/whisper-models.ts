import { z } from 'zod';
import { Timestamp } from './common';

export const WhisperModelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a model name such as base.en or large-v3-turbo')
  .meta({ description: 'whisper.cpp model name (`base.en`) or its engine id (`whisper-base.en`)' });

export const WhisperDownloadError = z
  .object({
    code: z
      .enum(['disk_full', 'not_writable', 'checksum_mismatch', 'http_error', 'network_error', 'cancelled', 'storage_error', 'interrupted'])
      .meta({
        description:
          "`storage_error`: on a team server, the team's storage did not take the downloaded file. `interrupted`: on a team server, the node running the download stopped (shut down, or reported no progress for 15 s: killed or cut off); download it again",
      }),
    message: z.string(),
  })
  .meta({ id: 'WhisperDownloadError' });

export const WhisperDownload = z
  .object({
    status: z.enum(['downloading', 'failed', 'cancelled']).meta({ description: 'A finished download is the installed model itself (`installed: true`)' }),
    received_bytes: z.number().int().meta({ description: 'Bytes on disk so far, resumed ones included (on a team server: on the downloading node, as it reported about once a second)' }),
    total_bytes: z.number().int().nullable().meta({ description: "The file's size as the server announced it" }),
    resumed_from: z.number().int().meta({ description: 'Bytes kept from an earlier attempt (HTTP Range)' }),
    started_at: Timestamp,
    error: WhisperDownloadError.nullable(),
  })
  .meta({ id: 'WhisperDownload' });

export const WhisperModel = z
  .object({
    name: z.string(),
    id: z.string().meta({ description: 'Engine id for `model` in /v1/audio/transcriptions' }),
    file: z.string(),
    catalogued: z.boolean().meta({ description: 'In the catalogue (downloadable, published checksum); false for other ggml files found in the folder' }),
    size: z.string().nullable().meta({ description: 'Published size (whisper.cpp models/README.md)' }),
    sha1: z.string().nullable().meta({ description: 'Published SHA-1 (whisper.cpp models/README.md)' }),
    multilingual: z.boolean(),
    quantized: z.boolean(),
    rank: z.number().int().meta({ description: 'Higher is preferred; the best installed recognizer takes the OpenAI aliases' }),
    installed: z.boolean().meta({ description: "On a team server: installed for the team (on its storage), whichever node downloaded it" }),
    bytes: z.number().int().nullable().meta({ description: 'Size on disk when installed' }),
    verified: z.boolean().nullable().meta({ description: 'True: its SHA-1 matched the published one (at download or on request); null: not checked (a file put there by hand)' }),
    partial_bytes: z.number().int().meta({ description: "Bytes of an unfinished download kept for resuming (on a team server: this node's own partial file; a download resumes from it only through this node)" }),
    download: WhisperDownload.nullable(),
  })
  .meta({ id: 'WhisperModel' });

export const WhisperModelList = z
  .object({
    models_dir: z.string(),
    writable: z.boolean(),
    base_url: z.string().meta({ description: 'Where downloads come from (TAKELINE_WHISPER_BASE_URL)' }),
    free_bytes: z.number().int().nullable(),
    shared: z.boolean().meta({
      description:
        "True on a team server: installed models are the team's, kept on its storage and listed by every node; a worker fetches its own copy (into models_dir/team) before using one. Downloads are the team's too: any node shows their progress and cancels them. `partial_bytes` and `free_bytes` are this node's",
    }),
    data: z.array(WhisperModel),
  })
  .meta({ id: 'WhisperModelList' });

export const WhisperDownloadCancel = z.object({
  discard: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1')
    .meta({ description: 'Also delete the bytes kept for resuming' }),
});

export type WhisperModel = z.infer<typeof WhisperModel>;
export type WhisperModelList = z.infer<typeof WhisperModelList>;
export type WhisperDownload = z.infer<typeof WhisperDownload>;
