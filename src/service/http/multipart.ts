import type { UploadedFile } from '../storage/uploaded-file';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy from 'busboy';
import { HttpError } from './errors';
import { diskFullError, isDiskFull } from '../storage/disk-full';
import { InvalidInputError, issue } from '../errors';

export type { UploadedFile };

export interface MultipartForm {
  fields: Map<string, string[]>;
  files: UploadedFile[];
  /** Removes every temporary file that was not moved away. */
  cleanup(): void;
}

export interface MultipartLimits {
  maxFileBytes: number;
  maxFieldBytes?: number;
  maxParts?: number;
}

/** Keeps the last segment of a client file name and drops control characters; never trusted as a path. */
export function displayFileName(raw: string | undefined): string {
  const last = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean === '.' || clean === '..' || clean === '' ? 'upload' : clean;
}

/**
 * Streams a multipart/form-data request: file parts go straight to disk (never whole in memory), text
 * parts are collected. Oversized files give 413; a truncated or malformed body gives a validation error.
 */
export async function readMultipart(req: Request, uploadsDir: string, limits: MultipartLimits): Promise<MultipartForm> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new HttpError(415, 'The request must be multipart/form-data with a "file" part.', { code: 'unsupported_media_type' });
  }
  const fields = new Map<string, string[]>();
  const files: UploadedFile[] = [];
  // Synchronous, so nothing is left behind by the time the response is sent.
  const cleanup = () => {
    for (const file of files) fs.rmSync(file.path, { force: true });
  };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: limits.maxFileBytes, fieldSize: limits.maxFieldBytes ?? 64 * 1024, parts: limits.maxParts ?? 64 },
    });
  } catch {
    throw new HttpError(415, 'The multipart/form-data request has no boundary.', { code: 'unsupported_media_type' });
  }
  let failure: Error | null = null;
  const writes: Promise<void>[] = [];
  let abandon: (error: Error) => void = () => undefined;

  let settled = false;

  parser.on('file', (field, stream, info) => {
    // A part arriving after the form failed would never be cleaned up: drain it instead.
    if (settled) {
      stream.resume();
      return;
    }
    const target = path.join(uploadsDir, `${crypto.randomUUID()}.part`);
    const file: UploadedFile = { field, path: target, fileName: displayFileName(info.filename), mimeType: info.mimeType, size: 0 };
    files.push(file);
    stream.on('data', (chunk: Buffer) => {
      file.size += chunk.length;
    });
    stream.on('limit', () => {
      failure ??= new HttpError(413, `The file is larger than the upload limit of ${limits.maxFileBytes} bytes.`, {
        code: 'file_too_large',
        param: field,
        // Answer now and drop the connection rather than read the rest of a huge body.
        headers: { Connection: 'close' },
      });
      req.unpipe(parser);
      req.resume();
      // Ends the disk write (its pipeline rejects), so the partial file can be removed.
      stream.destroy();
      abandon(failure);
    });
    const out = fs.createWriteStream(target, { flags: 'wx' });
    // The file is opened asynchronously: a pipeline that fails before the open completes settles first and
    // the file appears afterwards. Wait for the stream's close, so cleanup runs after the file exists.
    const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
    writes.push(
      pipeline(stream, out)
        .catch((error: Error) => {
          failure ??= error;
          // The disk refused the bytes (full, say): stop reading the body and answer now.
          if (!stream.readableEnded) {
            req.unpipe(parser);
            req.resume();
            abandon(failure);
          }
        })
        .then(() => closed),
    );
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) {
      failure ??= new InvalidInputError([
        issue(['body', name], `Value should have at most ${limits.maxFieldBytes ?? 64 * 1024} bytes`, 'string_too_long', null, {
          max_length: limits.maxFieldBytes ?? 64 * 1024,
        }),
      ]);
    }
    fields.set(name, [...(fields.get(name) ?? []), value]);
  });
  parser.on('partsLimit', () => {
    failure ??= new InvalidInputError([issue(['body'], 'Too many form parts', 'too_long', null, { max_length: limits.maxParts ?? 64 })]);
  });

  try {
    await new Promise<void>((resolve, reject) => {
      abandon = reject;
      parser.on('close', resolve);
      parser.on('error', reject);
      req.on('aborted', () => reject(new Error('aborted')));
      req.on('error', reject);
      req.pipe(parser);
    });
    await Promise.all(writes);
  } catch (error) {
    failure ??= error as Error;
    settled = true;
    await Promise.allSettled(writes);
  }
  settled = true;
  if (failure) {
    cleanup();
    if (failure instanceof HttpError || failure instanceof InvalidInputError) throw failure;
    if (isDiskFull(failure)) throw diskFullError();
    throw new InvalidInputError([
      issue(['body'], 'The multipart body is malformed or was cut short.', 'multipart_invalid', null, { reason: failure.message }),
    ]);
  }
  return { fields, files, cleanup };
}

/** Reads a single-valued text part; a repeated one is invalid input. */
export function singleField(form: MultipartForm, name: string): string | undefined {
  const values = form.fields.get(name);
  if (!values) return undefined;
  if (values.length > 1) {
    throw new InvalidInputError([issue(['body', name], 'The part was sent more than once', 'duplicate_part', values)]);
  }
  return values[0];
}

/** The one required file part. */
export function singleFile(form: MultipartForm, name: string): UploadedFile {
  const matches = form.files.filter((f) => f.field === name);
  if (matches.length === 0) throw new InvalidInputError([issue(['body', name], 'Field required', 'missing', null)]);
  if (matches.length > 1) throw new InvalidInputError([issue(['body', name], 'Send exactly one file', 'duplicate_part', null)]);
  return matches[0]!;
}
