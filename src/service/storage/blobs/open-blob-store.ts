import type { BlobStore } from './blob-store';
import { FolderBlobStore } from './folder-blob-store';
import type { DataLayout } from '../files';
import { ConfigError } from '../../config';
import { parseStorageUrl, StorageUrlError, type StorageLocation } from './storage-url';

/**
 * Where the service's files live: TAKELINE_STORAGE_URL when set, else the data folder itself, whose layout
 * (recordings/<session>/…) is what the keys name, so a desktop data folder needs no migration.
 */
export function storageLocation(env: NodeJS.ProcessEnv, layout: DataLayout): StorageLocation {
  const value = env.TAKELINE_STORAGE_URL?.trim();
  if (!value) return { kind: 'folder', root: layout.root };
  try {
    return parseStorageUrl(value, env);
  } catch (error) {
    if (error instanceof StorageUrlError) throw new ConfigError(error.message);
    throw error;
  }
}

/** The store for a parsed TAKELINE_STORAGE_URL; the S3 client is loaded only when S3 is used. */
export async function openBlobStore(location: StorageLocation): Promise<BlobStore> {
  if (location.kind === 'folder') return new FolderBlobStore(location.root);
  const { S3BlobStore } = await import('./s3-blob-store');
  return new S3BlobStore(location);
}
