import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkKey, checkPrefix, type BlobEntry, type BlobInfo, type BlobStore, type ByteRange } from './blob-store';
import { guardStorage, isS3Unreachable } from './storage-unavailable';

export interface S3Location {
  bucket: string;
  /** Inside the bucket, '' or ending with '/'. */
  prefix: string;
  endpoint?: string;
  region: string;
  /** Absent: the SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Objects in an S3-compatible bucket (AWS, Ceph's radosgw, MinIO…). S3 writes are whole by nature: an object
 * appears when its upload completes. Large files go up as multipart uploads; conditional writes use
 * `If-None-Match: *`. A gateway that cannot be reached or answers 5xx (after the SDK's own retries) throws
 * StorageUnavailableError.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly location: S3Location) {
    this.client = new S3Client({
      region: location.region,
      endpoint: location.endpoint,
      // Path-style addresses work with every S3-compatible server without wildcard DNS.
      forcePathStyle: location.endpoint !== undefined,
      credentials: location.credentials,
      // Checksums only where S3 requires them: the SDK's default trailing checksums (aws-chunked uploads)
      // are refused by S3-compatible servers that predate them, such as Ceph 16's radosgw.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get description(): string {
    return `s3://${this.location.bucket}/${this.location.prefix}${this.location.endpoint ? ` at ${this.location.endpoint}` : ''}`;
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    await this.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(key), Body: data }));
  }

  async putFile(key: string, file: string): Promise<void> {
    // Multipart above one part's size (recordings run to gigabytes; one PUT stops at 5 GB), in parallel parts.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.location.bucket, Key: this.key(key), Body: fs.createReadStream(file) },
      partSize: 8 * 1024 * 1024,
      queueSize: 4,
      leavePartsOnError: false,
    });
    await this.guard(() => upload.done());
  }

  async putIfAbsent(key: string, data: Buffer | string): Promise<boolean> {
    try {
      await this.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(key), Body: data, IfNoneMatch: '*' }));
      return true;
    } catch (error) {
      if (status(error) === 412 || status(error) === 409) return false;
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const body = await this.read(key);
    if (!body) return null;
    const chunks: Buffer[] = [];
    await this.guard(async () => {
      for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    });
    return Buffer.concat(chunks);
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const answer = await this.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (status(error) === 404) return null;
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const head = await this.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.key(key) }));
      return { size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (status(error) === 404) return null;
      throw error;
    }
  }

  async download(key: string, file: string): Promise<boolean> {
    const body = await this.read(key);
    if (!body) return false;
    // The body streams from the gateway: it can fail after the headers came.
    await this.guard(() => pipeline(body, fs.createWriteStream(file)));
    return true;
  }

  async delete(key: string): Promise<void> {
    await this.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.key(key) }));
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.entries(prefix)).map((e) => e.key);
  }

  async entries(prefix: string): Promise<BlobEntry[]> {
    const full = this.location.prefix + checkPrefix(prefix);
    const found: BlobEntry[] = [];
    let token: string | undefined;
    do {
      const page = await this.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: full, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key) found.push({ key: object.Key.slice(this.location.prefix.length), size: object.Size ?? 0, modified: object.LastModified ?? new Date(0) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    // DeleteObjects takes at most 1,000 keys a call.
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000).map((k) => ({ Key: this.location.prefix + k }));
      await this.send(new DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects: batch, Quiet: true } }));
    }
    return keys.length;
  }

  close(): void {
    this.client.destroy();
  }

  private send: S3Client['send'] = ((command: Parameters<S3Client['send']>[0]) => this.guard(() => this.client.send(command))) as S3Client['send'];

  private guard<T>(operation: () => Promise<T>): Promise<T> {
    return guardStorage(this.description, isS3Unreachable, operation);
  }

  private key(key: string): string {
    return this.location.prefix + checkKey(key);
  }
}

function status(error: unknown): number | undefined {
  if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode;
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

