import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where team mode keeps its files (TAKELINE_STORAGE_URL). */
export type StorageLocation =
  | { kind: 'folder'; root: string }
  | { kind: 's3'; bucket: string; prefix: string; endpoint?: string; region: string };

/** Why a storage address was refused, in words for the person who set it. */
export class StorageUrlError extends Error {}

// S3 bucket names: 3–63 lower-case letters, digits, dots and hyphens, starting and ending alphanumeric.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * `file:///path` (a folder every node mounts) or `s3://bucket/prefix` with TAKELINE_S3_ENDPOINT (any
 * S3-compatible server; unset: AWS) and TAKELINE_S3_REGION (default us-east-1). Credentials are the AWS
 * SDK's usual variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles or roles), never in the URL.
 */
export function parseStorageUrl(value: string, env: NodeJS.ProcessEnv = {}): StorageLocation {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new StorageUrlError('TAKELINE_STORAGE_URL must be file:///path or s3://bucket/prefix.');
  }
  if (url.protocol === 'file:') {
    if (url.host) throw new StorageUrlError('TAKELINE_STORAGE_URL: a file:// address names a local path (file:///mnt/media), not a host.');
    const root = fileURLToPath(url);
    if (!path.isAbsolute(root) || root === '/') throw new StorageUrlError('TAKELINE_STORAGE_URL: the folder must be an absolute path below the root.');
    return { kind: 'folder', root };
  }
  if (url.protocol === 's3:') {
    if (url.username || url.password) throw new StorageUrlError('TAKELINE_STORAGE_URL: keep S3 credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the address.');
    if (!BUCKET.test(url.hostname)) throw new StorageUrlError(`TAKELINE_STORAGE_URL: "${url.hostname}" is not an S3 bucket name.`);
    // The URL parser would quietly resolve dot segments, so they are looked for in what was written.
    const written = trimmed.slice('s3://'.length).split(/[?#]/)[0]!.split('/').slice(1);
    const inside = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
    if (written.some((part) => part === '..' || part === '.')) throw new StorageUrlError('TAKELINE_STORAGE_URL: the prefix cannot contain "." or "..".');
    const endpoint = env.TAKELINE_S3_ENDPOINT?.trim() || undefined;
    if (endpoint) {
      let parsed: URL;
      try {
        parsed = new URL(endpoint);
      } catch {
        throw new StorageUrlError('TAKELINE_S3_ENDPOINT must be an http:// or https:// address.');
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new StorageUrlError('TAKELINE_S3_ENDPOINT must be an http:// or https:// address.');
    }
    return { kind: 's3', bucket: url.hostname, prefix: inside ? `${inside}/` : '', endpoint, region: env.TAKELINE_S3_REGION?.trim() || 'us-east-1' };
  }
  throw new StorageUrlError(`TAKELINE_STORAGE_URL must be file:///path or s3://bucket/prefix, not ${url.protocol}//.`);
}
